"""Arguments the CLI bounds as the config and the action's inputs do: a value out of range is a usage error (exit 2)
before anything runs, never a run that executes nothing or an internal error once the agent has been called."""

from __future__ import annotations

import pytest

from khaos_action.cli import build_parser


@pytest.mark.parametrize("argv", [
    ["run", "--concurrency", "0"], ["run", "--concurrency", "513"], ["run", "--concurrency", "x"],
    ["run", "--min-score", "150"], ["run", "--min-score", "-1"], ["run", "--min-score", "nan"],
])
def test_an_out_of_range_number_is_a_usage_error(argv, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(argv)
    assert exited.value.code == 2
    assert argv[1] in capsys.readouterr().err


def test_values_in_range_are_kept_as_numbers() -> None:
    args = build_parser().parse_args(["run", "--concurrency", "512", "--min-score", "72.5"])
    assert (args.concurrency, args.min_score) == (512, 72.5)

