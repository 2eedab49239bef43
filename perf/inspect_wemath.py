"""The WE-MATH run as an inspect_ai task, for perf/fanout.py's side-by-side: the same
1740 questions, prompts (mathprobe's `plain` setting), images and generation settings, read
from the JSON-lines file that fanout.py writes (`WEMATH_SAMPLES`). inspect_ai reads each image
and sends it as a data URL, as mathprobe does; its `pattern` scorer takes the answer letter,
as mathprobe's grader does. Run by inspect_ai's own command, in a virtualenv of its own
(inspect_ai is not a dependency of mathprobe):

    WEMATH_SAMPLES=samples.jsonl inspect eval perf/inspect_wemath.py --model openai/bench
"""
import json
import os

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, GenerateConfig
from inspect_ai.scorer import pattern
from inspect_ai.solver import generate


def samples(path: str) -> list[Sample]:
    out = []
    with open(path) as lines:
        for line in lines:
            row = json.loads(line)
            out.append(Sample(id=row["id"], target=row["gold"], input=[ChatMessageUser(
                content=[ContentImage(image=row["image"]), ContentText(text=row["prompt"])])]))
    return out


@task
def wemath() -> Task:
    return Task(dataset=samples(os.environ["WEMATH_SAMPLES"]), solver=generate(),
                scorer=pattern(r"<Answer>: <<([A-Z])>>"),
                config=GenerateConfig(temperature=0.0, max_tokens=1024))
