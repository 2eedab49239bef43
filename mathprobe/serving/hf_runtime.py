"""A Hugging Face model in a local directory: generation with per-token log-probabilities, and
the log-probability of each token of a given text. The Triton models in `triton_models/` are
thin wrappers around this (so the same code runs in-process for benchmarks and checks).

Handles text-only causal LMs (AutoModelForCausalLM + tokenizer) and image-text-to-text models
(AutoModelForImageTextToText + processor, the image given as encoded bytes).
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch


@dataclass
class Generation:
    text: str
    token_ids: list[int]
    tokens: list[str]
    logprobs: list[float]
    input_tokens: int


@dataclass
class Scored:
    token_ids: list[int]
    tokens: list[str]
    logprobs: list[float]


class HFModel:
    def __init__(self, model_dir: str | Path, device: str = "cpu", dtype: torch.dtype | None = None):
        from transformers import (
            AutoConfig,
            AutoModelForCausalLM,
            AutoModelForImageTextToText,
            AutoProcessor,
            AutoTokenizer,
        )

        model_dir = Path(model_dir)
        if not (model_dir / "config.json").is_file():
            raise FileNotFoundError(f"{model_dir}: no config.json (not a transformers model dir)")
        config = AutoConfig.from_pretrained(model_dir)
        self.multimodal = (model_dir / "processor_config.json").is_file() or hasattr(config, "vision_config")
        kwargs = {"dtype": dtype} if dtype is not None else {}
        # the architecture config.json names, found by transformers' Auto factories: its
        # generate() and compute_transition_scores() are typed for classes the factories'
        # return types do not name, so the model is used as what it is at run time
        self.model: Any
        if self.multimodal:
            self.processor = AutoProcessor.from_pretrained(model_dir)
            self.tokenizer = self.processor.tokenizer
            self.model = AutoModelForImageTextToText.from_pretrained(model_dir, **kwargs)
            self.image_token = getattr(self.processor, "image_token", "<image>")
        else:
            self.processor = None
            self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
            self.model = AutoModelForCausalLM.from_pretrained(model_dir, **kwargs)
        self.tokenizer.padding_side = "left"
        self.device = torch.device(device)
        self.model.to(self.device).eval()
        self.name = json.loads((model_dir / "config.json").read_text()).get("_name_or_path") or model_dir.name

    # -- inputs ---------------------------------------------------------------------------
    def _inputs(self, prompts: list[str], images: list[bytes | None]) -> dict[str, torch.Tensor]:
        if any(images) and not self.multimodal:
            # a text-only model answers from the text; the caller is told via `multimodal`
            images = [None] * len(images)
        if self.multimodal and any(images):
            from PIL import Image

            if not all(images):
                raise ValueError("a batch is all with images or all without")
            pil = [Image.open(io.BytesIO(b)).convert("RGB") for b in images if b is not None]
            texts = [f"{self.image_token}\n{p}" for p in prompts]
            inputs = self.processor(images=pil, text=texts, return_tensors="pt", padding=True)
        else:
            inputs = self.tokenizer(prompts, return_tensors="pt", padding=True)
        return {k: v.to(self.device) for k, v in inputs.items()}

    # -- generation -----------------------------------------------------------------------
    @torch.inference_mode()
    def generate(self, prompts: list[str], images: list[bytes | None] | None = None,
                 max_new_tokens: int = 64, temperature: float = 0.0,
                 seed: int = 0) -> list[Generation]:
        """Generate for a batch (all with or all without images); log-probs are those of the
        distribution each token was drawn from (plain log-softmax when greedy)."""
        images = images or [None] * len(prompts)
        inputs = self._inputs(prompts, images)
        sample = temperature > 0
        if sample:
            torch.manual_seed(seed)
        out = self.model.generate(
            **inputs, max_new_tokens=max_new_tokens, do_sample=sample,
            temperature=temperature if sample else None, top_p=None, top_k=None,
            output_scores=True, return_dict_in_generate=True,
            pad_token_id=self.tokenizer.pad_token_id)
        scores = self.model.compute_transition_scores(out.sequences, out.scores,
                                                      normalize_logits=True)
        prompt_len = inputs["input_ids"].shape[1]
        eos = self.model.generation_config.eos_token_id
        eos = set(eos if isinstance(eos, list) else [eos]) if eos is not None else set()
        results = []
        for row, seq in enumerate(out.sequences):
            ids = seq[prompt_len:].tolist()
            lps = scores[row].tolist()
            keep = len(ids)
            for i, t in enumerate(ids):       # up to and including the first end-of-sequence
                if t in eos:
                    keep = i + 1
                    break
            ids, lps = ids[:keep], lps[:keep]
            results.append(Generation(
                text=self.tokenizer.decode(ids, skip_special_tokens=True), token_ids=ids,
                tokens=self.tokenizer.convert_ids_to_tokens(ids), logprobs=lps,
                input_tokens=int(inputs["attention_mask"][row].sum())))
        return results

    # -- scoring --------------------------------------------------------------------------
    @torch.inference_mode()
    def score(self, text: str, prefix: str = "") -> Scored:
        """log p(token | BOS, prefix, earlier tokens of text) for every token of `text`."""
        bos = [self.tokenizer.bos_token_id] if self.tokenizer.bos_token_id is not None else []
        pre = self.tokenizer(prefix, add_special_tokens=False)["input_ids"] if prefix else []
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        if not ids:
            return Scored([], [], [])
        full = torch.tensor([bos + pre + ids], device=self.device)
        if full.shape[1] < 2:
            raise ValueError("nothing to condition the first token on: the tokenizer has no BOS")
        logits = self._text_model_logits(full)
        logp = torch.log_softmax(logits[0, :-1].float(), dim=-1)
        targets = full[0, 1:]
        n = min(len(ids), len(targets))       # without BOS or prefix the first token has no context
        token_lp = logp.gather(1, targets.unsqueeze(1)).squeeze(1)[-n:]
        ids = ids[-n:]
        return Scored(ids, self.tokenizer.convert_ids_to_tokens(ids), token_lp.tolist())

    def _text_model_logits(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids).logits
