"""OpenAI-style chat messages: the text of a message's `content`, and the reply message of a chat completion.

`content` is a string, or a list of parts when a provider (or LangChain) answers in blocks: text parts
(`{"type": "text", "text": ...}`, or plain strings) are the text, other parts (images, tool calls) are not. The
attacker, LLM mutation, the LLM judge and the LangGraph adapter all read content through here.
"""

from __future__ import annotations

from typing import Any


class NotAChatCompletion(ValueError):
    """The body has no `choices[0].message.content`."""


def reply_content(completion: Any) -> Any:
    """`choices[0].message.content` of a parsed chat completion, as it is (see `content_text`)."""
    try:
        return completion["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise NotAChatCompletion("no choices[0].message.content") from None


def content_text(content: Any) -> str | None:
    """A message's content as text: the string itself, or its text parts joined ("" when it has none); None when
    it is neither a string nor a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part if isinstance(part, str) else str(part.get("text", "")) for part in content
                       if isinstance(part, str) or (isinstance(part, dict) and part.get("type") in (None, "text")))
    return None


def cut_for_length(completion: Any) -> bool:
    """Whether a parsed chat completion stopped at its token limit (`finish_reason` "length", or Anthropic-style
    "max_tokens") rather than because the model was done."""
    try:
        reason = completion["choices"][0].get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        return False
    return reason in ("length", "max_tokens")
