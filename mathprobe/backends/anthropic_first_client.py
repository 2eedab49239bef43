"""The Anthropic SDK and what its first client imports besides: the anthropic kind's
`slow_import` (see mathprobe/backends/openai_first_client.py, the same for OpenAI's SDK)."""
import anthropic

_resources = anthropic.AsyncAnthropic(api_key="unused",
                                      http_client=anthropic.DefaultAioHttpClient()).messages
