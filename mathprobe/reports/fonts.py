"""Fonts for every script the benchmarks use: ConceptMath's and CMMaTH's Chinese included.

Matplotlib's own DejaVu Sans has no CJK glyphs, so the plots of a ConceptMath ZH or CMMaTH run
drew every Chinese label as empty boxes. The project depends on `pylopdf-fonts-zh-cn`, a wheel
that carries Noto Sans SC (Google's Noto CJK, SIL Open Font License 1.1, 8 MB), so a plain
`pip install mathprobe` has the glyphs without any system package; a system's own Noto Sans CJK
or WenQuanYi is used where the wheel is missing. Matplotlib falls back glyph by glyph along
`FAMILY`: Latin from DejaVu Sans, CJK from the CJK face.

In the HTML report the plots' text stays text (searchable, crisp), naming the same families;
`css_font_face` embeds the CJK face cut down to the characters the page uses (fontTools'
subsetter), so the file shows Chinese on a machine without any CJK font.
"""
from __future__ import annotations

import base64
import functools
import io
from pathlib import Path

from matplotlib import font_manager

LATIN = "DejaVu Sans"
SYSTEM_CJK = ("Noto Sans CJK SC", "Noto Sans SC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei")


@functools.lru_cache(maxsize=1)
def cjk_font_file() -> Path | None:
    """The CJK font file the plots use: the wheel's Noto Sans SC, else a system one."""
    try:
        import pylopdf_fonts_zh_cn
        path = Path(pylopdf_fonts_zh_cn.sans_path())
        if path.is_file():
            return path
    except ImportError:
        pass
    for f in font_manager.fontManager.ttflist:
        if f.name in SYSTEM_CJK:
            return Path(f.fname)
    return None


@functools.lru_cache(maxsize=1)
def family() -> list[str]:
    """Matplotlib's font.family: Latin first, then the CJK face (registered with matplotlib)."""
    path = cjk_font_file()
    if path is None:
        return [LATIN]
    font_manager.fontManager.addfont(str(path))
    name = font_manager.FontProperties(fname=str(path)).get_name()
    return [LATIN, name]


def is_cjk(ch: str) -> bool:
    return ord(ch) >= 0x2E80


def css_font_face(text: str) -> str:
    """An @font-face rule embedding the CJK face, cut down to the CJK characters of `text`,
    under the family name the plots and the page's CSS name; '' when `text` has none."""
    chars = sorted(c for c in set(text) if is_cjk(c))
    path = cjk_font_file()
    if not chars or path is None:
        return ""
    data = _subset(path, "".join(chars))
    name = family()[-1]
    encoded = base64.b64encode(data).decode("ascii")
    return (f'@font-face {{ font-family: "{name}"; src: url(data:font/otf;base64,{encoded}) '
            'format("opentype"); font-display: block; }')


@functools.lru_cache(maxsize=8)        # a process that writes several reports (a sweep)
def _subset(path: Path, chars: str) -> bytes:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    opts = subset.Options()
    opts.layout_features = []          # plain glyphs: no vertical forms or ligatures needed,
    opts.drop_tables += ["GSUB", "GPOS", "GDEF", "BASE", "vhea", "vmtx", "VORG"]   # not parsed
    opts.name_IDs = [1, 2]
    opts.notdef_outline = True
    opts.hinting = False               # screens scale it anyway; with desubroutinize, 1,900
    opts.desubroutinize = True         # glyphs (a CMMaTH + ConceptMath report) take 30% less time
    font = TTFont(str(path))
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=[ord(c) for c in chars])
    sub.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()
