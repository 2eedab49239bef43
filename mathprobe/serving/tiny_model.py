"""Build a tiny, randomly initialised transformers model and a tokenizer trained in-process,
saved to a local directory: what tests and the CPU Triton launcher load through the real
`from_pretrained` code, since no weights can be downloaded here.

Two kinds: `vlm` (a Llava: CLIP vision tower + Llama text model, image-text-to-text) and `text`
(a Llama causal LM). Same seed, same files, same weights.
"""
from __future__ import annotations

from pathlib import Path

SPECIAL = ["<s>", "</s>", "<pad>", "<image>"]
BUILTIN_CORPUS = [
    "Now, we require you to solve a multiple-choice math question. Please briefly describe your "
    "thought process and provide the final answer(option).",
    "Question: Option: A. B. C. D. E. No correct answer <Thought process>: <Answer>:",
    "0 1 2 3 4 5 6 7 8 9 10 100 cm m km degrees area volume triangle circle square angle",
    "The answer is 42. 答案是 3/4 计算 三角形 面积 体积 周长 正方形 圆 角 度 厘米 米",
]


def train_tokenizer(texts: list[str], vocab_size: int = 2000):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   pad_token="<pad>", extra_special_tokens={"image_token": "<image>"})


def build(out_dir: str | Path, kind: str = "vlm", corpus: list[str] | None = None, seed: int = 0,
          hidden: int = 64, layers: int = 2) -> Path:
    import torch
    from transformers import (
        CLIPVisionConfig,
        LlamaConfig,
        LlamaForCausalLM,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    if kind not in ("vlm", "text"):
        raise ValueError(f"kind must be 'vlm' or 'text', not {kind!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer((corpus or []) + BUILTIN_CORPUS * 20)
    text = LlamaConfig(vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=2 * hidden,
                       num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=4,
                       max_position_embeddings=4096, bos_token_id=0, eos_token_id=1,
                       pad_token_id=2, initializer_range=0.1, tie_word_embeddings=False)
    torch.manual_seed(seed)
    if kind == "text":
        LlamaForCausalLM(text).save_pretrained(out)
        tokenizer.save_pretrained(out)
        return out
    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=2, image_size=32, patch_size=8,
                              initializer_range=0.1)
    config = LlavaConfig(vision_config=vision, text_config=text,
                         image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
                         vision_feature_layer=-1, vision_feature_select_strategy="default")
    LlavaForConditionalGeneration(config).save_pretrained(out)
    images = CLIPImageProcessorPil(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    LlavaProcessor(image_processor=images, tokenizer=tokenizer, patch_size=8,
                   vision_feature_select_strategy="default",
                   num_additional_image_tokens=1).save_pretrained(out)
    return out
