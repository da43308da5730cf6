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


def _calls(*names, **args):
    from khaos_action.messages import ToolCall

    return [ToolCall(name=name, args=dict(args)) for name in names]


@pytest.mark.parametrize(("expect", "calls", "passed", "detail"), [
    ({"tools_called": ["find_slots"]}, _calls("find_slots"), True, "expectations met"),
    ({"tools_called": ["find_slots"]}, _calls("list_doctors"), False,
     "expected a call to find_slots (tools_called); the agent called list_doctors"),
    ({"tools_called": ["find_*"]}, _calls("find_doctor"), True, "expectations met"),
    ({"tools_called": ["find_slots"]}, [], False, "expected a call to find_slots (tools_called); the agent called "
                                                  "no tool"),
    ({"tools_not_called": ["cancel_booking"]}, _calls("find_slots"), True, "expectations met"),
    ({"tools_not_called": ["cancel_booking"]}, _calls("find_slots", "cancel_booking", booking="B-7"), False,
     "called cancel_booking(booking='B-7'), which tools_not_called forbids"),
    ({"tools_not_called": ["issue_*"], "contains": "slot"}, _calls("issue_refund", amount=40), False,
     "called issue_refund(amount=40), which tools_not_called forbids"),
])
def test_tools_called_and_not_called(expect, calls, passed, detail):
    model = PackInput.model_validate({"text": "q", "expect": expect}).expect
    assert check_expect(model, "Your slot is at 10:00", calls) == (passed, detail)
