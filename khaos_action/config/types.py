"""Reusable constrained field types for config and fault parameter models."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

from khaos_action.config.regexes import check_pattern

RegexPattern = Annotated[str, AfterValidator(check_pattern)]
"""A string that must compile as a regular expression (config/regexes.py: searched with a time limit); the error
says where it breaks."""
