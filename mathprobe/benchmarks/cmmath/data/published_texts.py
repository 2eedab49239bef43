"""CMMaTH's published prompt texts, read at run time from the data directory
(`<data_dir>/cmmath/prompts_published.json`, like the benchmark itself): the paper's Tables 6,
10, 11 and 13 and the authors' code templates (tool/dataloader.py `prompt_templete`), and
GradeGPT's chat format. They are protocol: sent exactly as published, never edited here.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from mathprobe.errors import DataError
from mathprobe.files import read_json

FILE = "prompts_published.json"


@dataclass(frozen=True)
class Published:
    path: str
    plain: str            # the authors' code, prompt_templete["general"]
    step: str             # the authors' code, prompt_templete["fewshot"] (Table 6's step format)
    en_cot_system: str    # Table 10
    en_cot_example: str
    clp_system: str       # Table 11 (Cross-Lingual Prompting)
    clp_example: str
    temperature: float    # Table 13
    max_tokens: int
    gradegpt_system: str  # GradeGPT's chat format (its instruction data)
    gradegpt_header: str


FIELDS = {  # attribute -> where in the file
    "plain": ("authors_code_templates", "general"),
    "step": ("authors_code_templates", "fewshot"),
    "en_cot_system": ("en_cot_table10", "system"),
    "en_cot_example": ("en_cot_table10", "example"),
    "clp_system": ("clp_table11", "system"),
    "clp_example": ("clp_table11", "example"),
    "temperature": ("sampling_table13", "temperature"),
    "max_tokens": ("sampling_table13", "max_tokens"),
    "gradegpt_system": ("gradegpt_chat_system",),
    "gradegpt_header": ("gradegpt_user_header",),
}


def _get(data: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


@lru_cache(maxsize=8)
def published(data_dir: str | Path) -> Published:
    """The published texts of `<data_dir>/cmmath/`; a DataError naming the file and the field
    when one is missing or of the wrong type."""
    if not str(data_dir):
        raise DataError(FILE, "no data directory to read CMMaTH's published prompts from "
                        "(items loaded from a data directory carry it)")
    path = Path(data_dir) / "cmmath" / FILE
    if not path.is_file():
        raise DataError(path, "not found: CMMaTH's prompts are read from the data directory "
                        "(the published texts of the paper's Tables 6, 10, 11, 13 and the "
                        "authors' code)")
    data = read_json(path)
    values: dict[str, Any] = {}
    for attr, keys in FIELDS.items():
        value = _get(data, keys)
        want = (int,) if attr == "max_tokens" else (int, float) if attr == "temperature" else (str,)
        if not isinstance(value, want) or isinstance(value, bool) or value in ("", None):
            raise DataError(path, f"missing or not a {want[-1].__name__}", field=".".join(keys))
        values[attr] = value
    if "{question}" not in values["plain"] or "{question}" not in values["step"]:
        raise DataError(path, "the authors' templates must hold '{question}'",
                        field="authors_code_templates")
    return Published(path=str(path), **values)
