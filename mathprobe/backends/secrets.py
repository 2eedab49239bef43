"""API keys: from the environment or a Prefect Secret block, and kept out of everything stored.

Keys are never passed as flow parameters (those are stored by Prefect) and every error text that
reaches DuckDB or a log goes through `redact` first.
"""
from __future__ import annotations

import os
import re
import sqlite3
import sys
import tomllib
from pathlib import Path
from typing import overload

from mathprobe.errors import MathprobeError

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

            # Prefect's async_dispatch types load() as the block or a coroutine: outside an event
            # loop it is the block (a coroutine, inside one, fails here like a missing block)
            value = Secret.load(block_name(env_var)).get()  # type: ignore[union-attr]
        except Exception:   # no block, or no Prefect API: the message below says what to do
            value = None
    if not value:
        raise MathprobeError(f"no API key: set {env_var} or create a Prefect Secret block named "
                             f"'{block_name(env_var)}'")
    _seen.add(str(value))
    return str(value)


def key_available(env_var: str) -> bool | None:
    """Whether the key `env_var` can be had, decided without starting Prefect (which takes
    10-20 s when no server runs): True if the variable is set; None if only Prefect can tell
    (a Prefect server is configured, or the local Prefect database holds a Secret block of that
    name); False if neither can provide it."""
    if os.environ.get(env_var):
        return True
    if "prefect" in sys.modules or prefect_setting("PREFECT_API_URL"):
        return None                    # Prefect is loaded (it can tell at once), or a server is
    #                                    configured: the backend's client resolves the block
    url = (prefect_setting("PREFECT_API_DATABASE_CONNECTION_URL")
           or prefect_setting("PREFECT_SERVER_DATABASE_CONNECTION_URL"))
    if url and not url.startswith("sqlite"):
        return None
    db = Path(url.split("///", 1)[-1]) if url else _prefect_home() / "prefect.db"
    if not db.is_file():
        return False
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            found = con.execute(
                "SELECT 1 FROM block_document d JOIN block_type t ON t.id = d.block_type_id "
                "WHERE t.slug = 'secret' AND d.name = ?", [block_name(env_var)]).fetchone()
        finally:
            con.close()
    except sqlite3.Error:              # another schema, a locked file: let Prefect tell
        return None
    return None if found else False


def _prefect_home() -> Path:
    return Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()


def prefect_setting(name: str) -> str | None:
    """A Prefect setting from the environment or the active profile (profiles.toml)."""
    if os.environ.get(name):
        return os.environ[name]
    path = Path(os.environ.get("PREFECT_PROFILES_PATH") or _prefect_home() / "profiles.toml")
    try:
        profiles = tomllib.loads(path.expanduser().read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return None
    active = os.environ.get("PREFECT_PROFILE") or profiles.get("active") or "ephemeral"
    value = profiles.get("profiles", {}).get(active, {}).get(name)
    return str(value) if value else None


def _known_secrets() -> set[str]:
    env = {v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v) >= 8}
    return env | _seen


@overload
def redact(text: str) -> str: ...


@overload
def redact(text: None) -> None: ...


def redact(text: str | None) -> str | None:
    """Replace every known secret value in `text` by '***'."""
    if not text:
        return text
    for secret in _known_secrets():
        if secret and secret in text:
            text = text.replace(secret, "***")
    return text
