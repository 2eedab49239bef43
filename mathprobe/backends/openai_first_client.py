"""The OpenAI SDK and what its first client imports besides: the openai kind's `slow_import`,
imported ahead of a run by the warm runner (mathprobe/warm/runner.py) and, in a thread of its
own while the flow starts, by a command in its own process (mathprobe.cli.common.importing).

`import openai` alone leaves 95 modules to the first client (the transport's HTTP/1.1 and
HTTP/2 stacks, anyio's streams, the chat resources, truststore: 0.2 s here, 0.3-0.5 s on a
loaded machine), which a run's first request waited for. A client made here, never used (no
connection, no thread; the SDK reads no key until it sends), imports them whatever the SDK's
version holds.
"""
import openai

_resources = openai.AsyncOpenAI(api_key="unused",
                                http_client=openai.DefaultAioHttpClient()).chat.completions
