"""Alternations factored by their first character, for speed: the same matches, found sooner.

The refusal detector's patterns are long alternations of words ("important|importantly|crucial|..."), and Python's
regex engine tries every branch at every position: a branch whose first character is a case-insensitive literal is
entered before it fails, so a vocabulary of a hundred words costs a hundred tries per word of the text. Written as a
trie ("i(?:mport(?:ant(?:|ly))|...)|c(?:rucial|...)"), a position is given up after a character or two.

The rewrite keeps every match exactly (its span and its groups, at every position): branches that share a first
literal character are joined under it, each keeping its place among the others; a later branch is moved up to an
earlier one with its character only over branches that begin with another literal character, which can never match
where it does, so the order in which the engine meets the ways to match is unchanged. A zero-width first atom ("\\b")
is shared only by neighbouring branches, a branch with a capturing group is never moved (its group keeps its
number), and a pattern this reader does not fully understand (a conditional, a brace that may be a literal, verbose
mode) is returned as written.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"(?P<run>[^\\\[(){|?*+.^$]+)"
    r"|(?P<escape>\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|\d+|.))"
    r"|(?P<set>\[\^?\]?(?:\\.|[^\]\\\[])*\])"
    r"|(?P<open>\((?:\?(?::|P<\w+>|=|!|<=|<!|[aiLmsu-]+:))?)"
    r"|(?P<close>\))|(?P<bar>\|)"
    r"|(?P<quantifier>(?:[?*+]|\{\d+(?:,\d*)?\}|\{,\d+\})[?+]?)"
    r"|(?P<other>[.^$])"
    r"|(?P<unread>.)",
    re.DOTALL,
)
"""The pattern's pieces: a run of literal characters, an escape, a set, a group's opening (non-capturing, named,
capturing, lookaround, scoped flags), its closing, a bar, a quantifier. Anything else (a backreference, a comment, a
conditional, a global or verbose flag, a brace that is no quantifier, a nested set) leaves the pattern as written."""
_SAFE_KEYS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 '-,;:!\"%&/<>=@_`~]}"
    "àáâãäåæçèéêëìíîïñòóôõöøùúûüýþÿÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÕÖØÙÚÛÜÝÞœŒ"
)
"""Characters that may key a branch: each is equal, ignoring case, to no other character of this set but its own
upper or lower case, so two branches with different keys never match the same character. ("k", "s" and "i" have
exotic equals, the Kelvin sign, the long s and the dotless i, but none of those is in this set either.)"""
_ZERO_WIDTH = frozenset((r"\b", r"\B", r"\A", r"\Z"))
_SHORT_TAIL = 8
"""Characters of pattern a group's tail may have to be copied into each of its branches."""

# An atom is (kind, text, captures, branches, opening): a RUN of literal characters (no quantifier on its last), a
# ZERO-width escape, a GROUP with no quantifier (branches: its content as read; opening: "(?:", "(", "(?=", ...) or
# any OTHER.
RUN, ZERO, GROUP, OTHER = range(4)


class _Unsupported(Exception):
    """The pattern holds syntax the factoring does not read: it is compiled as written."""


def factored(pattern: str, flags: int = 0) -> str:
    """`pattern` with its alternations factored by their first character (the module docstring says why the matches
    are the same); as written when it holds syntax this reader leaves alone."""
    branches = parsed(pattern, flags)
    return pattern if branches is None else _join(branches, bool(flags & re.IGNORECASE))


def parsed(pattern: str, flags: int = 0) -> list[list[tuple]] | None:
    """The pattern's top-level branches, each a list of atoms (see RUN); None when it holds syntax this reader
    leaves alone."""
    if flags & re.VERBOSE:
        return None
    tokens = [(m.lastgroup, m.group()) for m in _TOKEN.finditer(pattern)]
    try:
        branches, end = _branches(tokens, 0, bool(flags & re.IGNORECASE))
    except _Unsupported:
        return None
    return branches if end == len(tokens) else None


def _branches(tokens: list[tuple[str, str]], i: int, ignorecase: bool) -> tuple[list[list[tuple]], int]:
    """The branches from token `i` to the closing of the enclosing group (or the end), each a list of atoms."""
    branches: list[list[tuple]] = [[]]
    while i < len(tokens):
        kind, text = tokens[i]
        branch = branches[-1]
        if kind == "close":
            break
        i += 1
        if kind == "bar":
            branches.append([])
        elif kind == "run":
            branch.append((RUN, text, False, None, None))
        elif kind == "escape":
            if text[1:].isdigit():
                raise _Unsupported  # a backreference or an octal escape
            branch.append((ZERO if text in _ZERO_WIDTH else OTHER, text, False, None, None))
        elif kind == "quantifier":
            _repeat(branch, text)
        elif kind == "open":
            group, i = _group(tokens, i, text, ignorecase)
            branch.append(group)
        elif kind == "set" or kind == "other":
            branch.append((OTHER, text, False, None, None))
        else:
            raise _Unsupported
    return branches, i


def _repeat(branch: list[tuple], quantifier: str) -> None:
    """The branch's last atom under `quantifier`: an atom with no key (a run gives up its last character alone)."""
    if not branch or branch[-1][0] == OTHER and branch[-1][1][-1:] in "?*+}":
        raise _Unsupported  # nothing to repeat, or a repeat repeated: not a pattern to rewrite
    kind, last, captures, _, _ = branch.pop()
    if kind == RUN and len(last) > 1:
        branch.append((RUN, last[:-1], False, None, None))
        last = last[-1]
    branch.append((OTHER, last + quantifier, captures, None, None))


def _group(tokens: list[tuple[str, str]], i: int, opening: str, ignorecase: bool) -> tuple[tuple, int]:
    """The group opened by `opening` before token `i`, its content read and factored; the index after its close."""
    if opening == "(" and i < len(tokens) and tokens[i][1].startswith("?"):
        raise _Unsupported  # "(?P=", "(?#", "(?(", a global flag, verbose mode
    scoped = ignorecase
    if opening[2:3] not in ("", ":", "P", "=", "!", "<"):  # scoped flags: "(?i:...)", "(?-i:...)"
        on, _, off = opening[2:-1].partition("-")
        scoped = (ignorecase or "i" in on) and "i" not in off
    inner, i = _branches(tokens, i, scoped)
    if i >= len(tokens):
        raise _Unsupported  # a group left open
    captures = opening == "(" or opening.startswith("(?P<") or any(a[2] for b in inner for a in b)
    return (GROUP, opening + _join(inner, scoped) + ")", captures, inner, opening), i + 1


def _key(branch: list[tuple], ignorecase: bool) -> str | None:
    """The first character a branch must match (lower-cased when case is ignored), or its leading zero-width
    escape; None when it has neither or holds a capturing group (which must keep its number)."""
    if not branch or any(atom[2] for atom in branch):
        return None
    kind, text = branch[0][0], branch[0][1]
    if kind == ZERO:
        return text
    if kind == RUN and text[0] in _SAFE_KEYS:
        return text[0].lower() if ignorecase else text[0]
    return None


def _rest(branch: list[tuple]) -> list[tuple]:
    """The branch after its key."""
    kind, text = branch[0][0], branch[0][1]
    if kind == RUN and len(text) > 1:
        return [(RUN, text[1:], False, None, None), *branch[1:]]
    return branch[1:]


def _join(branches: list[list[tuple]], ignorecase: bool) -> str:
    """The branches as one alternation, those with the same key joined under it (see the module docstring)."""
    groups: list[tuple[str | None, list[list[tuple]]]] = []
    for branch in _inlined(branches):
        key = _key(branch, ignorecase)
        target = None
        if key is not None:
            for group_key, members in reversed(groups):
                if group_key == key:
                    target = members
                    break
                # only over branches led by another literal character: they cannot match where this one does
                if group_key is None or group_key in _ZERO_WIDTH or key in _ZERO_WIDTH:
                    break
        if target is None:
            groups.append((key, [branch]))
        else:
            target.append(branch)
    parts = []
    for _, members in groups:
        if len(members) == 1:
            parts.append("".join(atom[1] for atom in members[0]))
        else:
            first = members[0][0]
            shared = first[1] if first[0] == ZERO else first[1][0]
            parts.append(shared + "(?:" + _join([_rest(m) for m in members], ignorecase) + ")")
    return "|".join(parts)


def _inlined(branches: list[list[tuple]]) -> list[list[tuple]]:
    """A branch that opens on a plain non-capturing group followed by a short tail ("(?:a|b)\\b") replaced by that
    group's branches, each with the tail ("a\\b|b\\b"): the engine meets the same ways to match in the same order,
    and the branches of several groups (one vocabulary per language) meet in one trie."""
    out: list[list[tuple]] = []
    for branch in branches:
        head = branch[0] if branch else None
        tail = branch[1:]
        if (head is not None and head[0] == GROUP and head[4] == "(?:" and not head[2]
                and sum(len(atom[1]) for atom in tail) <= _SHORT_TAIL and not any(atom[2] for atom in tail)):
            out.extend(_inlined([inner + tail for inner in head[3]]))
        else:
            out.append(branch)
    return out
