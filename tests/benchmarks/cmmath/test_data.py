"""CMMaTH loading: knowledge points, malformed records, settings and prompts, the image mode's
error, and the authors' result format. Also the hand-made data directories the other
test_cmmath_* files use (record, make_cmmath_dir, results_file)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mathprobe import runs
from mathprobe.benchmarks import cmmath
from mathprobe.errors import DataError, MathprobeError
from tests.conftest import shared_data_dir


def record(pid: str, *, answer: str = "$$1$$", answer_type: str = "free_form",
           grade_id: int = 12, category: str = "Bar Chart",
           knowledge_point: str | None = "统计(统计图表)", skill: str | None = None,
           question: str | None = None, ocr: str | None = "存在文字:3",
           **extra: Any) -> dict[str, Any]:
    """A cmmath.json record with every field the loader reads."""
    group = 1 if grade_id <= 6 else 2 if grade_id <= 9 else 3
    if question is None:
        question = f"第{pid}题：求图中的值．"
        if answer_type == "choice":
            question += "\nA.$$1$$\nB.$$2$$\nC.$$3$$\nD.$$4$$\n"
    rec = {
        "problem_id": pid, "question": question, "image_url": [], "image": [f"{pid}_img.png"],
        "imulti_img": False, "answer": answer if answer is None else answer + "\n",
        "answer_type": answer_type,
        "grade_id": grade_id, "grade_group": group, "knowledge_point": knowledge_point,
        "skill": skill, "analysis": "", "ocr": ocr,
        "metadata": {"source": "test", "multimodal-category": category},
    }
    rec.update(extra)
    return rec


def make_cmmath_dir(root: Path, records: list[Any]) -> Path:
    """Write `<root>/cmmath/cmmath.json` beside the published prompts (read from the shared
    data directory) and return the data directory `root`."""
    (root / "cmmath").mkdir(parents=True, exist_ok=True)
    (root / "cmmath" / "cmmath.json").write_text(json.dumps(records, ensure_ascii=False, indent=1),
                                                 encoding="utf-8")
    shutil.copyfile(shared_data_dir() / "cmmath" / "prompts_published.json",
                    root / "cmmath" / "prompts_published.json")
    return root


def results_file(path: Path, data_root: Path, responses: dict[str, str | None]) -> Path:
    """The authors' result format: the records plus `response` (None: the field is left out)."""
    rows = json.loads((data_root / "cmmath" / "cmmath.json").read_text(encoding="utf-8"))
    out = []
    for row in rows:
        if row["problem_id"] in responses:
            text = responses[row["problem_id"]]
            out.append({**row, **({"response": text} if text is not None else {})})
    path.write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def fresh_cache():
    cmmath.load.cache_clear()
    yield
    cmmath.load.cache_clear()


# -- knowledge points ---------------------------------------------------------------------------

def leaves(text):
    return [leaf for leaf, _ in cmmath.parse_points(text)]


def test_nested_point_with_several_leaves():
    text = "立体几何初步(基本立体图形(三视图(三视图与几何体转化问题,利用三视图求体积)))"
    assert cmmath.parse_points(text) == [
        ("三视图与几何体转化问题", "立体几何初步 > 基本立体图形 > 三视图 > 三视图与几何体转化问题"),
        ("利用三视图求体积", "立体几何初步 > 基本立体图形 > 三视图 > 利用三视图求体积"),
    ]


def test_leaves_at_different_depths_and_branches():
    text = ("统计与概率(统计(用样本估计总体(众数、中位数、平均数),统计图表),"
            "概率(随机变量及其分布(正态分布)))")
    assert leaves(text) == ["众数、中位数、平均数", "统计图表", "正态分布"]
    assert leaves("统计与概率(统计(统计图表))") == ["统计图表"]
    assert leaves("三角形(全等三角形(全等三角形的判定(AAS,ASA)))") == ["AAS", "ASA"]


def test_a_leaf_repeated_in_one_question_counts_once():
    assert leaves("集合(运算(交集,并集),表示(交集))") == ["交集", "并集"]


def test_full_width_brackets_and_commas_belong_to_the_name():
    # In cmmath.json the structure is written with ASCII ( ) , only; （…）, ， and 、 are part
    # of a point's name (a qualifier or a list naming one point).
    assert leaves("统计与概率(概率(事件与概率(古典概型(古典概型的概率计算（不涉及计数原理）))))") == [
        "古典概型的概率计算（不涉及计数原理）"]
    assert leaves("三角形(三角形及多边形(与三角形有关的线段(作三角形的高，中线和角平分线,"
                  "判断三角形的高，中线和角平分线)))") == [
        "作三角形的高，中线和角平分线", "判断三角形的高，中线和角平分线"]
    assert leaves("解三角形(余弦定理(利用余弦定理求解边角(SAS类三角形（利用余弦定理）)))") == [
        "SAS类三角形（利用余弦定理）"]
    assert leaves("图形认知(数学概念理解（几何）)") == ["数学概念理解（几何）"]


def test_a_flat_point_and_blank_text():
    assert leaves("推理论证能力") == ["推理论证能力"]
    assert leaves("") == [] and leaves("   ") == [] and leaves(None) == []


@pytest.mark.parametrize("bad", ["统计(统计图表", "统计(统计图表))", "统计(,统计图表)", "统计()",
                                 "统计(统计图表)附加", "统计(统计图表（未闭合)"])
def test_malformed_point_text(bad):
    with pytest.raises(cmmath.PointSyntaxError):
        cmmath.parse_points(bad)


def test_skill_stands_in_for_an_empty_knowledge_point():
    assert cmmath.item_points(record("1", knowledge_point=None, skill="图形认知(数学概念理解（几何）)")) \
        == ([("数学概念理解（几何）", "图形认知 > 数学概念理解（几何）")], "skill")
    assert cmmath.item_points(record("1", knowledge_point="  ", skill="运算能力")) == (
        [("运算能力", "运算能力")], "skill")
    assert cmmath.item_points(record("1", knowledge_point="统计(统计图表)", skill="运算能力"))[1] \
        == "knowledge_point"
    assert cmmath.item_points(record("1", knowledge_point=None, skill=None)) == ([], None)


# -- the published sample -------------------------------------------------------------------------

def test_the_published_sample_loads(data_dir):
    ds = cmmath.load(data_dir)
    assert len(ds.items) == 1000
    types = [i.payload["answer_type"] for i in ds.items]
    assert types.count("choice") == 781 and types.count("free_form") == 219
    groups = [i.payload["grade_group"] for i in ds.items]
    assert (groups.count(1), groups.count(2), groups.count(3)) == (40, 209, 751)
    first = ds.by_id()["17886"]
    assert first.gold == "C" and first.choices == ("A", "B", "C", "D") and first.group_id == "3"
    assert first.image_path is None          # text modes never carry an image
    tables = cmmath.reference_tables(ds)
    assert set(tables) == {"cmmath_items", "cmmath_item_points"}
    points = tables["cmmath_item_points"]
    pairs = list(zip(points["item_id"][1], points["point"][1]))
    assert len(pairs) == len(set(pairs))
    assert ("17886", "统计图表") in pairs
    # every full-width bracket in the file stays inside a name
    assert any("（" in p for p in points["point"][1])
    assert all(p.count("（") == p.count("）") for p in points["point"][1])
    assert len(set(tables["cmmath_items"]["category"][1])) == 14


def test_choices_come_from_the_question_text():
    q = "则（   ）\nA.$$PA$$\nB.$$PD$$\nC.$$AD$$\n"
    assert cmmath.option_letters(q) == ("A", "B", "C")
    assert cmmath.option_letters("点D．在线段上，求长度") == ()
    assert cmmath.gold_letters("A\nC\n") == frozenset("AC")
    assert cmmath.gold_letters("暂无") is None and cmmath.gold_letters("$$AB$$") is None


# -- malformed records ---------------------------------------------------------------------------

@pytest.mark.parametrize("change, field", [
    ({"problem_id": None}, "problem_id"),
    ({"question": ""}, "question"),
    ({"answer": None}, "answer"),
    ({"answer_type": "essay"}, "answer_type"),
    ({"grade_id": 13}, "grade_id"),
    ({"grade_group": 4}, "grade_group"),
    ({"grade_group": 1}, "grade_group"),                     # grade 12 is senior (3)
    ({"metadata": {"source": "x"}}, "metadata.multimodal-category"),
    ({"metadata": None}, "metadata"),
    ({"knowledge_point": "统计(统计图表"}, "knowledge_point"),
    ({"knowledge_point": None, "skill": "图形认知(几何"}, "skill"),
    ({"knowledge_point": 7}, "knowledge_point"),
    ({"image": "a.png"}, "image"),
])
def test_malformed_record_names_file_row_and_field(tmp_path, change, field):
    rows = [record("001"), record("002", **change)]
    root = make_cmmath_dir(tmp_path, rows)
    with pytest.raises(DataError) as exc:
        cmmath.load(root)
    err = exc.value
    assert err.file == str(root / "cmmath" / "cmmath.json")
    assert (err.row, err.field) == (2, field)
    assert "row 2" in str(err) and field in str(err)


def test_a_choice_answer_not_among_the_options_names_file_row_and_field(tmp_path):
    """A choice question whose reference answer is a letter it does not offer (E of A-D)
    could never be answered right: refused, not graded wrong for every model. Official rows
    whose answer is not letters at all ('暂无', part answers) stay as they are."""
    rows = [record("001", answer="暂无", answer_type="choice"),
            record("002", answer="A\nC", answer_type="choice"),
            record("003", answer="E", answer_type="choice")]
    root = make_cmmath_dir(tmp_path, rows)
    with pytest.raises(DataError) as exc:
        cmmath.load(root)
    assert (exc.value.row, exc.value.field, exc.value.item) == (3, "answer", "003")
    assert "'E' is not among the options (A, B, C, D)" in str(exc.value)


def test_duplicate_problem_id(tmp_path):
    root = make_cmmath_dir(tmp_path, [record("001"), record("002"), record("001")])
    with pytest.raises(DataError, match="also used by row 1") as exc:
        cmmath.load(root)
    assert (exc.value.row, exc.value.field) == (3, "problem_id")


def test_not_a_list_not_json_not_there(tmp_path):
    root = make_cmmath_dir(tmp_path / "a", [])
    (root / "cmmath" / "cmmath.json").write_text("{\"x\": 1}")
    with pytest.raises(DataError, match="JSON array"):
        cmmath.load(root)
    (root / "cmmath" / "cmmath.json").write_text("[{]")
    cmmath.load.cache_clear()
    with pytest.raises(DataError, match="not valid JSON"):
        cmmath.load(root)
    with pytest.raises(DataError, match="file not found"):
        cmmath.load(tmp_path / "nowhere")
    root = make_cmmath_dir(tmp_path / "b", [record("001"), "not a record"])
    with pytest.raises(DataError, match="expected a JSON object") as exc:
        cmmath.load(root)
    assert exc.value.row == 2


# -- settings, prompts, the image mode -------------------------------------------------------------

def test_settings(data_dir):
    assert cmmath.DEFAULT_SETTING == "text" and cmmath.DEFAULT_SETTING in cmmath.SETTINGS
    assert {"text", "text+ocr", "image", "text/clp", "image/en-cot", "text+ocr/step",
            "text/plain"} <= set(cmmath.SETTINGS)
    assert len(cmmath.SETTINGS) == 3 + 3 * 4
    assert cmmath.parse_setting("text") == ("text", "step")
    assert cmmath.parse_setting("text+ocr/clp") == ("text+ocr", "clp")
    with pytest.raises(ValueError, match="unknown CMMaTH setting"):
        cmmath.parse_setting("text/zero-shot")
    # the paper's sampling, Table 13
    texts = cmmath.published(data_dir)
    assert cmmath.DEFAULT_PARAMS == {"temperature": texts.temperature,
                                     "max_tokens": texts.max_tokens} == {"temperature": 0.2,
                                                                         "max_tokens": 2048}
    assert cmmath.GRADERS == ("rules",)


def test_prompts_are_the_published_texts(data_dir):
    """Each prompt is the published text, read from the data directory, with the question put
    in: the authors' code templates as their dataloader fills them, the paper's Tables 10 and
    11 (system text and worked example) before the question in the example's form."""
    item = cmmath.load(data_dir).by_id()["17886"]
    raw = json.loads((data_dir / "cmmath" / "prompts_published.json").read_text(encoding="utf-8"))
    q = item.question
    assert q == item.payload["question"] and q.endswith("\n")
    step = cmmath.build_prompt(item, "text")
    assert step == raw["authors_code_templates"]["fewshot"].format_map({"question": q})
    assert step.startswith("你是一个数学题解题助手") and "<STEP1>" in step
    assert cmmath.build_prompt(item, "text/step") == step
    assert cmmath.build_prompt(item, "text/plain") == \
        raw["authors_code_templates"]["general"].format_map({"question": q})
    assert cmmath.build_prompt(item, "text/en-cot") == (
        raw["en_cot_table10"]["system"] + "\n\n" + raw["en_cot_table10"]["example"]
        + "\n\nQuestion: " + q.strip() + "\nModel response:")
    clp = cmmath.build_prompt(item, "text/clp")
    assert clp == (raw["clp_table11"]["system"] + "\n\n" + raw["clp_table11"]["example"]
                   + "\n\nRequest: " + q.strip() + "\nReason Result:")
    assert "Let's understand the task in English step-by-step!" in clp     # the worked example
    ocr = cmmath.build_prompt(item, "text+ocr")
    assert "存在文字:距" in ocr and q.strip() in ocr and ocr != step
    cot = cmmath.build_prompt(item, "text+ocr/en-cot")
    assert "OCR" in cot and q.strip() in cot
    assert len({step, ocr, clp, cot, cmmath.build_prompt(item, "text/plain")}) == 5


def test_published_prompts_file_errors(tmp_path):
    root = make_cmmath_dir(tmp_path / "d", [record("001")])
    item = cmmath.load(root).by_id()["001"]
    prompts = root / "cmmath" / "prompts_published.json"
    cmmath.published.cache_clear()
    bad = json.loads(prompts.read_text(encoding="utf-8"))
    del bad["clp_table11"]["example"]
    prompts.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(DataError, match="missing") as exc:
        cmmath.build_prompt(item, "text/clp")
    assert exc.value.field == "clp_table11.example" and str(prompts) in str(exc.value)
    cmmath.published.cache_clear()
    prompts.unlink()
    with pytest.raises(DataError, match="not found") as exc:
        cmmath.build_prompt(item, "text")
    assert str(prompts) in str(exc.value)
    cmmath.published.cache_clear()


@pytest.mark.parametrize("setting", ["image", "image/clp", "image/en-cot"])
def test_image_mode_says_the_images_are_missing_and_where(data_dir, setting):
    item = cmmath.load(data_dir).by_id()["17886"]
    where = data_dir / "cmmath" / "images" / "17886_img.png"
    with pytest.raises(DataError) as exc:
        cmmath.build_prompt(item, setting)
    msg = str(exc.value)
    assert str(where) in msg and "image" in msg and "text+ocr" in msg
    assert isinstance(exc.value, MathprobeError)
    with pytest.raises(DataError):     # the flow's path: building the request
        runs.build_request(cmmath.benchmark, item, "m", setting, {})


def test_text_requests_carry_no_image(data_dir):
    item = cmmath.load(data_dir).by_id()["17886"]
    req = runs.build_request(cmmath.benchmark, item, "m", "text+ocr/clp", cmmath.DEFAULT_PARAMS)
    assert req.image is None and req.choices == ("A", "B", "C", "D")


def test_image_mode_sends_the_image_when_it_is_there(tmp_path):
    root = make_cmmath_dir(tmp_path, [record("00001")])
    (root / "cmmath" / "images").mkdir()
    (root / "cmmath" / "images" / "00001_img.png").write_bytes(b"\x89PNG the picture")
    item = cmmath.load(root).by_id()["00001"]
    with_image = runs.build_request(cmmath.benchmark, item, "m", "image/clp", cmmath.DEFAULT_PARAMS)
    assert with_image.image == b"\x89PNG the picture"
    without = runs.build_request(cmmath.benchmark, item, "m", "text/clp", cmmath.DEFAULT_PARAMS)
    assert without.image is None and without.prompt == with_image.prompt
    assert with_image.request_hash != without.request_hash


def test_select_is_a_stratified_sample_over_grade_groups_and_subjects(data_dir):
    items = cmmath.load(data_dir).items
    assert cmmath.select(items, None) == list(items)
    chosen = cmmath.select(items, 60)
    assert len(chosen) == 60
    for group in ("1", "2", "3"):               # proportional to the grade group's size, +-1
        share = 60 * sum(1 for i in items if i.group_id == group) / len(items)
        assert abs(sum(1 for i in chosen if i.group_id == group) - share) < 1, group
    subjects = {i.payload["metadata"]["multimodal-category"] for i in chosen}
    assert len(subjects) >= 10                  # of 14 visual subjects, 3 of them tiny


# -- the authors' result format ----------------------------------------------------------------------

def write(path: Path, rows, jsonl=False):
    text = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) if jsonl else json.dumps(
        rows, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return path


def test_read_official_results(tmp_path):
    root = make_cmmath_dir(tmp_path / "d", [record("001"), record("002"), record("003")])
    ds = cmmath.load(root)
    rows = [{**record("001"), "response": "答案：1"},
            {"problem_id": "002", "model_response": "答案：2"},
            {"problem_id": "003"}]
    for jsonl in (False, True):
        got = cmmath.read_official_results(write(tmp_path / "r.json", rows, jsonl), ds)
        assert [(r.item.item_id, r.response, r.verdicts) for r in got] == [
            ("001", "答案：1", {}), ("002", "答案：2", {}), ("003", None, {})]


@pytest.mark.parametrize("rows, row, message", [
    ([{"problem_id": "009", "response": "1"}], 1, "not in cmmath.json, and the row is not a whole "
                                                  "record"),
    ([{"problem_id": "001", "response": "1"}, {"problem_id": "001", "response": "2"}], 2,
     "twice (also row 1)"),
    ([{"problem_id": 1, "response": "1"}], 1, "not a string"),
    ([{"problem_id": "001", "response": 5}], 1, "not text"),
    ([{"problem_id": "001", "question": "另一道题", "response": "1"}], 1, "question text differs"),
    (["oops"], 1, "JSON object"),
])
def test_bad_result_rows_are_left_out_and_listed(tmp_path, rows, row, message):
    """A row that cannot be imported is counted and listed with its reason, the other rows
    are read (never a stop at the first bad row)."""
    root = make_cmmath_dir(tmp_path / "d", [record("001"), record("002")])
    ds = cmmath.load(root)
    got = cmmath.read_official_results(write(tmp_path / "r.json", rows + [
        {"problem_id": "002", "response": "答案：2"}]), ds)
    assert [r.item.item_id for r in got.rows][-1] == "002"
    (skipped,) = got.skipped
    assert skipped.row == row and message in skipped.reason
