"""Every image a benchmark ships becomes a thumbnail the browser shows as the image looks: each
mode Pillow opens (palette with and without a transparent colour, grey with alpha, RGBA, CMYK,
1-bit, 16-bit, 32-bit and float grey, 8-bit grey) generated here with a dark left half, a
bright right half and, where the mode has transparency, a transparent bottom band that must come
out white; then the modes the data folder really holds, and `report --html` over WE-MATH
problem 304, whose palette PNGs crashed it ("image has wrong mode")."""
from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from mathprobe import registry
from mathprobe.cli.main import app
from mathprobe.reports import thumbnails
from mathprobe.runs import import_official
from mathprobe.store import open_store

W, H = 1200, 600                 # shrunk 5x to the 240 px thumbnail
DARK, BRIGHT = 0.1, 0.9          # of the mode's range


def _halves(shape=(H, W)) -> np.ndarray:
    """0..1 values: DARK on the left half, BRIGHT on the right."""
    out = np.full(shape, BRIGHT)
    out[:, : shape[1] // 2] = DARK
    return out


def _alpha() -> np.ndarray:
    """Opaque, but for a transparent band at the bottom fifth."""
    a = np.full((H, W), 255, dtype=np.uint8)
    a[-H // 5:] = 0
    return a


def _grey8() -> np.ndarray:
    return np.rint(_halves() * 255).astype(np.uint8)


def _image(mode: str) -> tuple[Image.Image, str]:
    """(a generated image in `mode`, the format it is saved as)."""
    if mode == "1":
        return Image.fromarray(_halves() > 0.5), "PNG"
    if mode == "L":
        return Image.fromarray(_grey8()), "PNG"
    if mode == "LA":
        return Image.fromarray(np.dstack([_grey8(), _alpha()]), "LA"), "PNG"
    if mode == "RGBA":
        g = _grey8()
        return Image.fromarray(np.dstack([g, g, g, _alpha()]), "RGBA"), "PNG"
    if mode in ("P", "P+transparency"):
        index = (_halves() > 0.5).astype(np.uint8)          # 0: dark, 1: bright
        if mode == "P+transparency":
            index[-H // 5:] = 2                              # the transparent colour
        im = Image.fromarray(index, "L").convert("P")
        im.putpalette([25, 25, 25, 230, 230, 230, 0, 0, 0] + [0] * (3 * 253))
        if mode == "P+transparency":
            im.info["transparency"] = 2
        return im, "PNG"
    if mode == "CMYK":
        ink = np.rint((1 - _halves()) * 255).astype(np.uint8)    # K: 90% ink left, 10% right
        zero = np.zeros_like(ink)
        return Image.fromarray(np.dstack([zero, zero, zero, ink]), "CMYK"), "JPEG"
    if mode == "I;16":
        return Image.fromarray(np.rint(_halves() * 65535).astype(np.uint16)), "PNG"
    if mode == "I":      # 16-bit data in 32-bit integers, as a 16-bit PNG or TIFF often opens
        return Image.fromarray(np.rint(_halves() * 65535).astype(np.int32)), "TIFF"
    if mode == "F":
        return Image.fromarray(_halves().astype(np.float32)), "TIFF"
    raise AssertionError(mode)


def _decoded(src: str) -> np.ndarray:
    """A thumbnail's data: URL as an (h, w, 3) array, checked to be a JPEG."""
    head, data = src.split(",", 1)
    assert head == "data:image/jpeg;base64"
    im = Image.open(io.BytesIO(base64.b64decode(data)))
    assert im.format == "JPEG" and im.mode == "RGB"
    return np.asarray(im, dtype=np.float64)


MODES = ["P", "P+transparency", "LA", "RGBA", "CMYK", "I;16", "I", "F", "1", "L"]


@pytest.mark.parametrize("mode", MODES)
def test_every_image_mode_is_shown_as_it_looks(mode):
    im, fmt = _image(mode)
    buf = io.BytesIO()
    im.save(buf, fmt)
    opened = Image.open(io.BytesIO(buf.getvalue()))
    assert opened.mode == mode.split("+")[0], opened.mode       # the mode under test
    pixels = _decoded(thumbnails.make(buf.getvalue()))
    h, w, _ = pixels.shape
    assert (w, h) == (thumbnails.THUMB_PX, thumbnails.THUMB_PX // 2)   # shrunk, shape kept
    top = pixels[: h // 2]                        # opaque in every mode
    left, right = top[:, : w // 2 - 4].mean(), top[:, w // 2 + 4:].mean()
    # dark stays dark and bright bright: a 16-bit image is not clipped to white, a float one
    # in [0, 1] not to black, CMYK not inverted; a 1-bit image is black and white
    lo, hi = (0, 255) if mode == "1" else (255 * DARK, 255 * BRIGHT)
    assert abs(left - lo) < 20 and abs(right - hi) < 20, (mode, left, right)
    if mode in ("P+transparency", "LA", "RGBA"):
        band = pixels[-h // 5 + 3:]                 # transparent: laid on white, as a page
        assert band.min() > 235, (mode, band.min())


def test_an_image_smaller_than_a_thumbnail_keeps_its_size():
    im = Image.fromarray(np.rint(_halves((100, 150)) * 65535).astype(np.uint16))
    buf = io.BytesIO()
    im.save(buf, "PNG")
    assert _decoded(thumbnails.make(buf.getvalue())).shape == (100, 150, 3)


def test_what_is_not_an_image_gets_no_thumbnail():
    assert thumbnails.make(b"not an image") is None
    assert thumbnails.make(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40) is None      # a broken PNG


def _modes_in(data_dir: Path) -> dict[tuple[str, bool], list[Path]]:
    """(mode, has a transparent colour) -> the benchmark image files in it."""
    out: dict[tuple[str, bool], list[Path]] = {}
    for bench in ("wemath", "cmmath", "conceptmath"):
        for path in sorted((data_dir / bench).rglob("*")):
            if path.suffix.lower() in (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp"):
                with Image.open(path) as im:
                    out.setdefault((im.mode, "transparency" in im.info), []).append(path)
    return out


def test_every_mode_the_data_ships_is_shown(data_dir):
    """The data's modes (WE-MATH: RGBA, RGB, palette with and without a transparent colour),
    a few files of each: a thumbnail with both the drawing's ink and its paper in it."""
    found = _modes_in(data_dir)
    assert {("RGBA", False), ("P", True), ("P", False)} <= set(found), sorted(found)
    for (mode, _), paths in found.items():
        for path in paths[:5]:
            pixels = _decoded(thumbnails.make(path.read_bytes()))
            assert max(pixels.shape[:2]) <= thumbnails.THUMB_PX, path
            assert pixels.max() - pixels.min() > 100, (mode, path)      # not a blank square


def test_the_html_report_of_problem_304_embeds_its_images(data_dir, tmp_path):
    """Problem 304's palette PNGs (one with a transparent colour) made `report --html` exit 1
    with a traceback; now the report is written with each of its images a thumbnail."""
    rows = [r for r in json.loads((data_dir / "wemath" / "testmini.json").read_text())
            if r["ID"] in ("2steps_304", "2steps_1")]
    path = tmp_path / "answers.json"
    path.write_text(json.dumps([{**r, "response": f"<Answer>: <<{r['answer']}>>"}
                                for r in rows]))
    db = tmp_path / "runs.duckdb"
    store = open_store(db)
    import_official(store, registry.get("wemath"), data_dir, path, "p304")
    store.close()
    out = tmp_path / "report.html"
    done = CliRunner().invoke(app, ["report", "--db", str(db), "--html", str(out),
                                    "--run-id", "p304", "--data-dir", str(data_dir)])
    assert done.exit_code == 0, done.output
    data = json.loads(re.search(r'<script type="application/json" id="items-data">(.*?)</script>',
                                out.read_text(encoding="utf-8"), re.S)[1].replace("<\\/", "</"))
    images = {row[1]: data["images"][row[7]] for row in data["rows"]}
    assert set(images) == {f"{p}/{k}" for p in ("2steps_304", "2steps_1")
                           for k in ("2steps_1", "2steps_2", "2steps_multi")}
    for item, src in images.items():
        assert _decoded(src).max() > 200, item
