"""Task completion: the pack input's `expect`, as the loader validated it, decides whether a reply completes it."""

from __future__ import annotations

import pytest

from khaos_action.config.models import Expect, PackInput
from khaos_action.judge.expect import check_expect


@pytest.mark.parametrize(("expect", "reply", "passed", "detail"), [
    (None, "Your order shipped.", True, "non-empty reply"),
    (None, "  ", False, "empty reply"),
    ({"contains": ["1234", "shipped"]}, "Order 1234 SHIPPED", True, "expectations met"),
    ({"contains": "1234"}, "Order 5678", False, "expected to contain '1234'"),
    ({"contains_any": ["DHL", "UPS"]}, "sent with ups", True, "expectations met"),
    ({"not_contains": "tracking"}, "No Tracking yet", False, "expected not to contain 'tracking'"),
    ({"regex": r"^order \d+$"}, "Order 12", True, "expectations met"),
    ({"regex": r"\bDH\d+"}, "none", False, r"expected to match /\bDH\d+/"),
    ({"equals": "yes"}, " yes \n", True, "expectations met"),
    ({"equals": "yes"}, "yes!", False, "expected exactly 'yes'"),
])
def test_a_reply_completes_the_task_when_every_given_check_holds(expect, reply, passed, detail):
    model = None if expect is None else PackInput.model_validate({"text": "q", "expect": expect}).expect
    assert check_expect(model, reply) == (passed, detail)


def test_a_bad_expect_regex_is_rejected_when_the_pack_loads_not_when_a_reply_is_judged():
    with pytest.raises(ValueError, match="regex"):
        Expect.model_validate({"regex": "(unclosed"})
