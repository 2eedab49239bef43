"""API keys: from the environment or a Prefect Secret block, and kept out of everything stored.

Keys are never passed as flow parameters (those are stored by Prefect) and every error text that
reaches DuckDB or a log goes through `redact` first.
"""
from __future__ import annotations

import os
import re

from tasks.errors import MathprobeError

_SECRET_NAME = re.compile(r"(API_KEY|TOKEN|SECRET)$")
_seen: set[str] = set()


def block_name(env_var: str) -> str:
    """OPENAI_API_KEY -> 'openai-api-key' (the Prefect Secret block looked up when unset)."""
    return env_var.lower().replace("_", "-")


def resolve_secret(env_var: str) -> str:
    value = os.environ.get(env_var)
    if not value:
        try:
            from prefect.blocks.system import Secret

            value = Secret.load(block_name(env_var)).get()
        except Exception:   # no block, or no Prefect API: the message below says what to do
            value = None
    if not value:
        raise MathprobeError(f"no API key: set {env_var} or create a Prefect Secret block named "
                             f"'{block_name(env_var)}'")
    _seen.add(str(value))
    return str(value)


def _known_secrets() -> set[str]:
    env = {v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v) >= 8}
    return env | _seen


def redact(text: str | None) -> str | None:
    """Replace every known secret value in `text` by '***'."""
    if not text:
        return text
    for secret in _known_secrets():
        if secret and secret in text:
            text = text.replace(secret, "***")
    return text
