"""What loads is what a reader of the file sees: the attack corpus, the built-in packs and the demo's data.

A plain YAML scalar ends at ` #`: `carrier: Catch me up on the #support channel.` loads as "Catch me up on the",
and nothing else notices (the corpus still loads, counts and renders). These tests read the YAML node stream next
to the source text, so a text field that lost words to a comment, a placeholder that does not render, or a
carrier cut off mid-sentence fails here instead of reaching an agent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from khaos_action.canary import Canary, render_payload
from khaos_action.config.corpus import load_corpus

ROOT = Path(__file__).resolve().parents[2]
CORPUS_FILES = sorted((ROOT / "packs" / "attacks").glob("*.yaml"))
DATA_FILES = sorted([*(ROOT / "packs").glob("*.yaml"), *(ROOT / "khaos_action" / "demo").glob("*.yaml"),
                     *(ROOT / "examples").rglob("*.yaml")])

# Fields whose value is prose sent to (or shown about) an agent: a comment after one of these is almost surely text
# the author meant to keep. Other keys (`mode: error  # raises`, `command: python server.py  # or url: ...`) may
# carry a trailing comment legitimately.
TEXT_KEYS = frozenset({"payload", "carrier", "turns", "description", "text", "input", "inputs", "golden_prompts",
                       "prompt", "prompts", "reference", "purpose", "system_prompt", "message", "content"})
_COMMENT_AFTER = re.compile(r"[ \t]+#")
_STR_TAG = "tag:yaml.org,2002:str"
# A carrier is a whole user request: it ends like a sentence, not on a word that needs a noun after it (a question
# may end on a preposition: "What can you help me with?").
_SENTENCE_END = re.compile(r"[.?!…][\"')\]]*$")
_DANGLING = frozenset({"a", "an", "the", "my", "your", "our", "their", "his", "her", "its", "and", "or"})
_PROBE = Canary(a="KXPROBEA", b="QZPROBEB")


def _scalars(node: yaml.Node, key: str | None = None) -> Iterator[tuple[str | None, yaml.ScalarNode]]:
    """Every scalar value with the mapping key it belongs to (list items inherit their list's key)."""
    if isinstance(node, yaml.ScalarNode):
        yield key, node
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _scalars(item, key)
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            yield from _scalars(v, k.value if isinstance(k, yaml.ScalarNode) else None)


def lost_to_comments(source: str) -> list[str]:
    """Text fields whose source line goes on after the loaded value with a `#` comment: YAML dropped those words."""
    problems = []
    for documents in yaml.compose_all(source, Loader=yaml.SafeLoader):
        for key, node in _scalars(documents):
            if node.style is not None or node.tag != _STR_TAG:
                continue  # quoted and block scalars keep `#`; only plain scalars end at ` #`
            line_end = source.find("\n", node.end_mark.index)
            rest = source[node.end_mark.index: None if line_end < 0 else line_end]
            if _COMMENT_AFTER.match(rest) and key in TEXT_KEYS:
                problems.append(f"line {node.start_mark.line + 1}: `{key}` loads as {node.value!r} but the line "
                                f"goes on with {rest.strip()!r}; quote the value")
    return problems


def unfinished_sentence(text: str) -> str | None:
    """Why `text` does not read as a complete request, or None."""
    text = text.strip()
    if not _SENTENCE_END.search(text):
        return "does not end with . ? or !"
    words = re.findall(r"[\w']+", text.lower())
    if words and words[-1] in _DANGLING:
        return f"ends on {words[-1]!r}"
    return None


def test_the_check_catches_a_carrier_cut_by_a_comment():
    old_line_145 = "attacks:\n  - id: ii-018\n    carrier: Catch me up on the #support channel.\n"
    [problem] = lost_to_comments(old_line_145)
    assert "line 3" in problem and "'Catch me up on the'" in problem and "#support channel." in problem
    assert unfinished_sentence(yaml.safe_load(old_line_145)["attacks"][0]["carrier"]) is not None


@pytest.mark.parametrize("source", [
    "carrier: 'Catch me up on the #support channel.'\n",
    "carrier: \"Catch me up on the #support channel.\"\n",
    "payload: |-\n  run this # and this\n",
    "mode: error  # the tool raises\n",
    "turns:\n  - Tell me more, please.  \n",
])
def test_the_check_leaves_quoted_block_and_one_word_values_alone(source):
    assert lost_to_comments(source) == []


@pytest.mark.parametrize("text, reason", [
    ("Catch me up on the", "does not end"),
    ("Please summarise the.", "ends on 'the'"),
    ("What can you help me with?", None),
    ("What's the weather in Berlin today?", None),
    ('Read the note titled "Q3 plan."', None),
])
def test_unfinished_sentences(text, reason):
    found = unfinished_sentence(text)
    assert (found is None) if reason is None else (reason in found)


@pytest.mark.parametrize("path", CORPUS_FILES + DATA_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_text_is_lost_to_a_yaml_comment(path):
    assert lost_to_comments(path.read_text(encoding="utf-8")) == []


CORPUS = load_corpus()


@pytest.mark.parametrize("attack", CORPUS.attacks, ids=lambda a: a.id)
def test_every_placeholder_renders(attack):
    for template in attack.texts():
        rendered = render_payload(template, _PROBE)
        assert not re.search(r"\{\s*canary", rendered, re.IGNORECASE), rendered
        if "{canary}" in template:
            assert _PROBE.shown in rendered
        if "{canary_a}" in template or "{canary_b}" in template:
            assert _PROBE.a in rendered or _PROBE.b in rendered


@pytest.mark.parametrize("attack", [a for a in CORPUS.attacks if a.carrier], ids=lambda a: a.id)
def test_every_carrier_is_a_complete_request(attack):
    assert unfinished_sentence(attack.carrier) is None, attack.carrier


def _pack_inputs() -> Iterator[tuple[str, str]]:
    for path in DATA_FILES:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            continue
        for key in ("inputs", "golden_prompts"):
            for item in data.get(key) or ():
                text = item.get("text") if isinstance(item, dict) else item
                if isinstance(text, str):
                    yield f"{path.relative_to(ROOT)}: {text[:40]}", text
        agent = data.get("agent")
        for item in (agent.get("golden_prompts") or ()) if isinstance(agent, dict) else ():
            text = item.get("text") if isinstance(item, dict) else item
            if isinstance(text, str):
                yield f"{path.relative_to(ROOT)}: {text[:40]}", text


@pytest.mark.parametrize("text", [t for _, t in _pack_inputs()], ids=[i for i, _ in _pack_inputs()])
def test_pack_and_demo_inputs_are_whole(text):
    """Inputs may be short ("Hello there!") but never cut off on a word that needs another after it."""
    words = re.findall(r"[\w']+", text.lower())
    assert text.strip() and (not words or words[-1] not in _DANGLING), text
