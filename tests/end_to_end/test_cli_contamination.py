"""Cross-case contamination through the CLI, on a clinic appointment bot whose module-level memory is shared by
every concurrent user: the replies that list another patient's appointments are marked on both cases, fail, and the
run says what to do; the same bot with its memory built per call is clean."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.fixtures.cli.harness import khaos, manifest

CLINIC = Path(__file__).resolve().parents[1] / "fixtures" / "clinic"
PATIENTS = ("P-1042", "P-2077", "P-3155", "P-4410")
# A sync agent's worker serves one case at a time, so the memory leaks between the cases one worker serves in turn.
# Two workers for four patients: whatever the timing, a worker serves two patients one after the other. (With one
# worker per patient, a run whose cases ended in plan order could give each worker the same patient every time, and
# nothing would leak.)
CONFIG = """\
version: 1
agent:
  name: riverside
  type: python
  entry: clinic_agent.py:{entry}
  tools: [clinic_tools.py:list_appointments, clinic_tools.py:find_slots]
seed: 5
concurrency: 2
packs: [baseline.yaml]
golden_prompts:
""" + "".join(f'  - "{ask} patient {p}"\n' for ask in ("Show my appointments,", "When is my next visit?",
                                                       "List bookings for") for p in PATIENTS)


def _run(tmp_path: Path, entry: str):
    for name in ("clinic_agent.py", "clinic_tools.py", "baseline.yaml"):
        shutil.copy(CLINIC / name, tmp_path / name)
    (tmp_path / "khaos.yaml").write_text(CONFIG.format(entry=entry), encoding="utf-8")
    ran = khaos("run", "--out", "out", "--format", "json,md", cwd=tmp_path, timeout=120)
    return ran, manifest(tmp_path / "out")


def test_a_shared_memory_leaking_between_concurrent_patients_is_contamination(tmp_path):
    ran, found = _run(tmp_path, "handle")
    assert ran.code == 1, ran
    assert "cases contaminated: a reply carried another case's data" in ran.stdout
    assert "build the agent (and its memory) per call, keep per-user state in `agent.context`, or set " \
           "`concurrency: 1`" in ran.stdout
    by_id = {c["id"]: c for c in found["cases"]}
    marked = [c for c in found["cases"] if c.get("contaminated")]
    received = [c for c in marked if any(x["direction"] == "received" for x in c["contaminated"])]
    assert received and all(c["passed"] is False for c in marked)
    for case in received:
        for item in (x for x in case["contaminated"] if x["direction"] == "received"):
            other = by_id[item["other_case"]]
            own = case["input"].split()[-1]
            # the evidence is the other patient's data, and it is really in this reply, not in this patient's own
            assert item["string"] in case["output"].casefold()
            assert own not in other["input"]
            assert any(x["direction"] == "leaked" for x in other["contaminated"])  # both cases are marked
    assert "contaminated:" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


def test_the_same_bot_with_memory_per_call_is_clean(tmp_path):
    ran, found = _run(tmp_path, "handle_per_call")
    assert ran.code == 0, ran
    assert not any(c.get("contaminated") for c in found["cases"])
    assert "contaminated" not in ran.stdout
