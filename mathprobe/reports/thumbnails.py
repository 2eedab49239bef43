"""Image thumbnails for the HTML report's item browser: any image a benchmark ships, as a JPEG
data: URL of at most `THUMB_PX` pixels a side.

Benchmarks ship images in many modes: WE-MATH's are RGBA, RGB and palette PNGs (problem 304's
with a transparent colour, which crashed the report: Pillow's `reduce` takes no palette image),
and a scan or an exported figure can be grey with alpha (LA), CMYK, 1-bit, or 16-bit / 32-bit /
float grey ("I;16", "I", "F"). JPEG holds only 8-bit L, RGB and CMYK, and a browser shows CMYK
JPEGs inconsistently, so every image is made 8-bit RGB or RGBA (`displayable`), laid on white
where it is transparent (as a page shows it), shrunk, then encoded; an image in a mode Pillow's
`reduce` takes (RGB, RGBA, L, LA, CMYK: nearly all) is shrunk by whole factors first, which
keeps the cost at a few milliseconds (perf/thumbnails.py).

High bit depths are scaled, never clipped: clipping a 16-bit image to 8 bits shows it white (all
but the darkest values exceed 255), and a float image in [0, 1] black. "I;16" is scaled by its
range (65535); "I" and "F" carry no declared range, so the range their values fit is used: 0..1
(floats), 0..255, 0..65535, else the image's own minimum to maximum.
"""
from __future__ import annotations

import base64
import io

THUMB_PX = 240
QUALITY = 72
ALPHA_MODES = frozenset({"RGBA", "RGBa", "LA", "La", "PA"})
REDUCIBLE = frozenset({"RGB", "RGBA", "L", "LA", "CMYK"})    # modes Pillow's reduce() takes
KEPT = 2_000                 # thumbnails kept for the next report of this process: ~12 MB

_KEPT: dict[str, str | None] = {}     # content digest -> thumbnail (a sweep, the warm runner)


def thumbnail(digest: str, data: bytes) -> str | None:
    """The thumbnail of `data` (an image file's bytes, `digest` its content hash), made once
    per process; None where it is not an image Pillow reads."""
    if digest not in _KEPT:
        if len(_KEPT) >= KEPT:
            _KEPT.clear()
        _KEPT[digest] = make(data)
    return _KEPT[digest]


def make(data: bytes) -> str | None:
    """A JPEG data: URL of at most THUMB_PX a side; None where Pillow cannot read `data`."""
    from PIL import Image, UnidentifiedImageError

    im: Image.Image
    try:
        im = Image.open(io.BytesIO(data))
        im.draft(None, (2 * THUMB_PX, 2 * THUMB_PX))    # a JPEG decodes at a fraction
        im.load()
    except (UnidentifiedImageError, OSError, ValueError):
        return None
    factor = max(1, max(im.size) // THUMB_PX)
    if factor > 1 and im.mode in REDUCIBLE:        # most images: shrunk before anything else
        im = im.reduce(factor)
    im = displayable(im)
    if im.mode == "RGBA":                          # on white, then shrunk as RGB (cheaper)
        im = Image.alpha_composite(Image.new("RGBA", im.size, "white"), im).convert("RGB")
    im.thumbnail((THUMB_PX, THUMB_PX))
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=QUALITY)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def displayable(im):
    """`im` as 8-bit RGB, or RGBA where it has transparency (an alpha band, or a palette or
    grey image's transparent colour), its high bit depths scaled (see the module's docstring)."""
    if im.mode.startswith("I;16") or im.mode in ("I", "F"):
        im = _scaled(im)
    transparent = im.mode in ALPHA_MODES or "transparency" in im.info
    if im.mode == ("RGBA" if transparent else "RGB"):
        return im
    try:
        return im.convert("RGBA" if transparent else "RGB")
    except ValueError:      # a mode Pillow converts only by way of another (e.g. 'La')
        return im.convert("RGBA" if transparent else "L").convert("RGBA" if transparent
                                                                  else "RGB")


def _scaled(im):
    """A high-bit-depth grey image as 8-bit grey ('L'): its values mapped from their range."""
    import numpy as np
    from PIL import Image

    values = np.asarray(im, dtype=np.float64)
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    if im.mode.startswith("I;16"):
        lo, hi = 0.0, 65535.0
    elif lo >= 0 and hi <= 1 and im.mode == "F":
        lo, hi = 0.0, 1.0
    elif lo >= 0 and hi <= 255:
        lo, hi = 0.0, 255.0
    elif lo >= 0 and hi <= 65535:
        lo, hi = 0.0, 65535.0
    span = hi - lo if hi > lo else 1.0
    grey = np.clip(np.nan_to_num((values - lo) / span * 255.0, nan=0.0), 0, 255)
    return Image.fromarray(np.rint(grey).astype(np.uint8))
