"""`type: python` entry: the shop assistant run in-process (see shop_agent.py)."""

from shop_agent import handle

__all__ = ["handle"]
