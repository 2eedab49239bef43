"""A chat as one text, for backends that take one text (Triton's `lmm_generate`, any
text-completion endpoint) instead of a list of messages."""
from __future__ import annotations

from mathprobe.items import Request

# The role labels of the transcript.
FLAT_ROLES = {"user": "User", "assistant": "Assistant"}


def flatten(request: Request) -> str:
    """The one text a completion-style backend gets for `request`.

    Without prior turns: the prompt, after the system prompt and a blank line if there is one
    (unchanged from before chats existed). With turns: a role-labelled transcript, blocks
    separated by a blank line: the system prompt (if any), each prior turn as `User: <text>` /
    `Assistant: <text>`, the final `User: <prompt>`, and a closing `Assistant:` that the model
    continues. The benchmark authors publish no flattening of their chats (ConceptMath's
    evaluation hands the turns to a chat model), so this is ours: the plain-text transcript of
    the legacy text-completion prompt format (`Human: ... Assistant:`), with the roles' names.
    """
    if not request.turns:
        return f"{request.system}\n\n{request.prompt}" if request.system else request.prompt
    blocks = [request.system] if request.system else []
    blocks += [f"{FLAT_ROLES[role]}: {text}" for role, text in request.turns]
    blocks += [f"{FLAT_ROLES['user']}: {request.prompt}", f"{FLAT_ROLES['assistant']}:"]
    return "\n\n".join(blocks)
