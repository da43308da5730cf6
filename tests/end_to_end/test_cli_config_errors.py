"""Bad config and an agent that cannot be loaded, through the real CLI: exit 2 (config) or 3 (agent), one clear
message on stderr naming file:line:col and the fix, and no traceback unless --debug."""

from __future__ import annotations

import pytest

from tests.fixtures.cli.harness import khaos, workspace

GOOD_AGENT = "version: 1\nagent:\n  entry: agents.py:support\n  tools: [agents.py:stateless]\n"
CONTRACT = """\
golden_prompts: ["Where is my order 1234?"]
contract:
  invariants:
    - {id: answers, type: output_not_empty, severity: critical}
    - {id: degrades-well, type: contains, value: order, when: llm_faults_active}
chaos_matrix:
  - name: calm
  - name: tool-down
    tool_faults: [{tool: stateles, mode: eror}]
"""

BAD_CONFIGS = [
    # (what, khaos.yaml or None for none at all, command, stderr fragments in order)
    ("missing config", None, ["run"],
     ["error: config file not found: khaos.yaml", "Create khaos.yaml"]),
    ("YAML syntax error", GOOD_AGENT.replace("agents.py:support", "[agents.py:support") + "seed: 1\n", ["run"],
     ["error: khaos.yaml:4:8: YAML syntax error", "Close the bracket"]),
    ("unknown key", GOOD_AGENT + "concurency: 4\n", ["validate"],
     ["error: khaos.yaml:5:1: concurency: unknown key `concurency`", "Did you mean `concurrency`?"]),
    ("wrong type", GOOD_AGENT + "concurrency: many\n", ["run"],
     ["error: khaos.yaml:5:14: concurrency: expected an integer, found 'many'"]),
    ("fault the registry rejects, undeclared tool, never-true when", GOOD_AGENT + CONTRACT, ["validate"],
     ["error: khaos.yaml: 3 problems:",
      "khaos.yaml:13:36: chaos_matrix[1].tool_faults[0].mode: Unknown fault mode 'eror'", "Did you mean `error`?",
      ("khaos.yaml:13:20: chaos_matrix[1].tool_faults[0].tool: tool fault targets `stateles`, which the agent does "
      "not declare"), "Did you mean `stateless`?",
      "khaos.yaml:9:57: contract.invariants[1].when: invariant `degrades-well` has `when: llm_faults_active`"]),
    ("the same semantic errors stop a run", GOOD_AGENT + CONTRACT, ["run", "--out", "out"],
     ["Unknown fault mode 'eror'"]),
    ("and `contract validate`", GOOD_AGENT + CONTRACT, ["contract", "validate"],
     ["Unknown fault mode 'eror'"]),
    ("unknown mutation type", GOOD_AGENT + "golden_prompts: [hi]\nmutation: {types: [typos, leetspeek]}\n",
     ["validate"], ["khaos.yaml:6:", "mutation.types[1]: unknown mutation type 'leetspeek'",
                    "Did you mean `leetspeak`?"]),
]


@pytest.mark.parametrize(("what", "config", "command", "fragments"), BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_config_errors_exit_2_with_a_positioned_message_and_no_traceback(tmp_path, what, config, command,
                                                                          fragments) -> None:
    ws = workspace(tmp_path, config)
    ran = khaos(*command, cwd=ws)
    assert ran.code == 2, ran
    assert "Traceback" not in ran.stderr, ran
    position = 0
    for fragment in fragments:
        found = ran.stderr.find(fragment, position)
        assert found >= 0, f"{fragment!r} missing (in order) from:\n{ran.stderr}"
        position = found + len(fragment)
    assert not (ws / "out" / "manifest.json").exists()


def test_tool_invariant_about_an_undeclared_tool_is_only_a_warning(tmp_path) -> None:
    config = GOOD_AGENT + ('golden_prompts: ["hi"]\ncontract:\n  invariants:\n'
                           '    - {id: no-refunds, type: tool_not_called, name: issue_refund}\n'
                           'chaos_matrix: [{name: calm}]\n')
    ws = workspace(tmp_path, config)
    ran = khaos("validate", cwd=ws)
    assert ran.code == 0, ran
    assert "warning: khaos.yaml:8:47: contract.invariants[0].name: invariant `no-refunds` (tool_not_called) names " \
           "tool `issue_refund`, which the agent does not declare" in ran.stdout
    ran = khaos("run", "--out", "out", cwd=ws)
    assert "names tool `issue_refund`" in ran.stdout
    assert ran.code == 0, ran


AGENT_THAT_DOES_NOT_IMPORT = """\
version: 1
agent:
  entry: broken.py:handle
golden_prompts: ["hi"]
contract:
  invariants: [{id: answers, type: output_not_empty}]
chaos_matrix: [{name: calm}]
"""


def test_an_agent_that_does_not_import_exits_3_naming_the_missing_module(tmp_path) -> None:
    ws = workspace(tmp_path, AGENT_THAT_DOES_NOT_IMPORT)
    ran = khaos("run", "--out", "out", cwd=ws)
    assert ran.code == 3, ran
    assert "Traceback" not in ran.stderr
    assert ran.stderr.startswith("error: agent.entry 'broken.py:handle' could not be imported: ModuleNotFoundError: "
                                 "No module named 'khaos_cli_missing_dependency'"), ran
    assert "install the agent's dependencies" in ran.stderr


def test_debug_shows_the_traceback_and_the_same_exit_code(tmp_path) -> None:
    ws = workspace(tmp_path, AGENT_THAT_DOES_NOT_IMPORT)
    ran = khaos("--debug", "run", "--out", "out", cwd=ws)
    assert ran.code == 3, ran
    assert "Traceback (most recent call last)" in ran.stderr
    assert "import khaos_cli_missing_dependency" in ran.stderr


def test_in_github_actions_the_message_is_a_workflow_error_command(tmp_path) -> None:
    ws = workspace(tmp_path, GOOD_AGENT + "concurency: 4\n")
    ran = khaos("validate", cwd=ws, env={"GITHUB_ACTIONS": "true"})
    assert ran.code == 2, ran
    assert ran.stderr.startswith("::error::khaos.yaml:5:1: concurency: unknown key"), ran
    assert "Traceback" not in ran.stderr
