"""The batch endpoints of the loopback double (tests/support/fake_api.py), as the services'
documentation gives them, so the official SDKs' batch clients work against it unchanged.

OpenAI's Batch API:
  POST /v1/files                 multipart/form-data (`purpose`, `file`): a file object
  GET  /v1/files/{id}            the file object;  GET /v1/files/{id}/content: its bytes
  POST /v1/batches               {input_file_id, endpoint, completion_window: "24h", metadata}
  GET  /v1/batches/{id}          status validating -> in_progress -> finalizing -> completed
                                 (or expired, failed, cancelling -> cancelled), request_counts
                                 {total, completed, failed}, output_file_id, error_file_id
  GET  /v1/batches               the list, newest first (limit, after)
  POST /v1/batches/{id}/cancel
  The input file is validated when the batch is created: a line that is not JSON, a repeated
  custom_id, a method other than POST or a url other than the batch's endpoint fails the batch
  (`failed`, `errors.data[]` with code, message and line). An ended batch's output file holds
  a line per answered request ({id, custom_id, response: {status_code: 200, request_id, body},
  error: null}); its error file a line per request with none: a refused or failed request
  ({response: {status_code: 4xx/5xx, body: {error}}}) or one the batch never ran ({response:
  null, error: {code: batch_expired | batch_cancelled, message}}).

Anthropic's Message Batches:
  POST /v1/messages/batches      {requests: [{custom_id, params}]}; custom_id must match
                                 ^[a-zA-Z0-9_-]{1,64}$ and be unique (400 otherwise)
  GET  /v1/messages/batches/{id} processing_status in_progress -> ended (canceling -> ended),
                                 request_counts {processing, succeeded, errored, canceled,
                                 expired}, results_url once ended
  GET  /v1/messages/batches/{id}/results   JSONL: {custom_id, result: {type: succeeded,
                                 message} | {type: errored, error: {type: error, error: {type,
                                 message}}} | {type: canceled} | {type: expired}}
  GET  /v1/messages/batches      the list, newest first (limit, after_id)
  POST /v1/messages/batches/{id}/cancel

Each request of a batch is answered as a direct call would be (the same replies, the same
scripted faults and refused parameters; a fault of 429 / 5xx becomes that request's error),
results in an order of their own (shuffled). Scripted: `batch_delay_s` (a batch ends that long
after it was created; its counts grow meanwhile), `batch_hold` (batches stay in progress while
it is set), `batch_expire` (text -> n: a request whose prompt holds the text is not run in the
first n batches it is in: that batch ends `expired` at OpenAI, the request `expired` at
Anthropic); `batch_api` False answers these paths 404 {"detail": "Not Found"}, as an
OpenAI-compatible server without them does (vLLM's). `batch_submissions` records every accepted
batch (service, id, custom_ids) and `batch_lines` every request handed in."""
from __future__ import annotations

import email.parser
import email.policy
import json
import random
import re
import time
import uuid
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

OPENAI_ENDED = ("completed", "expired", "failed", "cancelled")
ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
WINDOW_S = 24 * 3600

Answer = tuple[int, bytes, dict[str, str] | None]


def _json(status: int, obj: Any) -> Answer:
    return status, json.dumps(obj).encode(), None


def _openai_error(status: int, message: str, param: str | None = None,
                  kind: str = "invalid_request_error") -> Answer:
    return _json(status, {"error": {"message": message, "type": kind, "param": param,
                                    "code": None}})


def _anthropic_error(status: int, kind: str, message: str) -> Answer:
    return _json(status, {"type": "error", "error": {"type": kind, "message": message}})


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat().replace("+00:00", "Z")


class BatchEndpoints:
    """Mixed into FakeAPI: the batch endpoints (see the module's docstring)."""

    def _batch_endpoint(self, method: str, path: str, headers: dict,
                        body: bytes) -> Answer | None:
        """The answer to a batch endpoint's request, or None for any other path."""
        url = urlsplit(path)
        parts = url.path.rstrip("/").split("/")
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if not self.batch_api and (parts[:3] in (["", "v1", "files"], ["", "v1", "batches"])
                                   or parts[:4] == ["", "v1", "messages", "batches"]):
            return _json(404, {"detail": "Not Found"})      # a server without them (vLLM's)
        with self._lock:
            if parts[:3] == ["", "v1", "files"]:
                return self._files(method, parts[3:], headers, body)
            if parts[:3] == ["", "v1", "batches"]:
                return self._openai_batches(method, parts[3:], body, query)
            if parts[:4] == ["", "v1", "messages", "batches"]:
                return self._anthropic_batches(method, parts[4:], body, query)
        return None

    def _expires(self, prompt: str) -> bool:
        """Whether the request expires in this batch (`batch_expire`: text -> in how many
        batches a request holding it expires before one runs it)."""
        for text, left in self.batch_expire.items():
            if text in prompt and left > 0:
                self.batch_expire[text] = left - 1
                return True
        return False

    def _note(self, service: str, batch_id: str, lines: list[tuple[str, dict]]) -> None:
        self.batch_submissions.append({"service": service, "id": batch_id,
                                       "custom_ids": [c for c, _ in lines], "at": time.time()})
        self.batch_lines += [{"service": service, "batch": batch_id, "custom_id": c, "body": b}
                             for c, b in lines]

    # -- OpenAI -------------------------------------------------------------------------------
    def _files(self, method: str, rest: list[str], headers: dict, body: bytes) -> Answer:
        if method == "POST" and not rest:
            fields = _multipart(headers.get("content-type", ""), body)
            if "file" not in fields or "purpose" not in fields:
                missing = "file" if "file" not in fields else "purpose"
                return _openai_error(400, f"Missing required parameter: '{missing}'.", missing)
            name, data = fields["file"]
            purpose = fields["purpose"][1].decode()
            fid = f"file-{uuid.uuid4().hex[:24]}"
            self.files[fid] = {"id": fid, "object": "file", "bytes": len(data),
                               "created_at": int(time.time()), "filename": name or "upload",
                               "purpose": purpose, "status": "processed", "expires_at": None,
                               "status_details": None, "_data": data}
            return _json(200, _public(self.files[fid]))
        f = self.files.get(rest[0]) if rest else None
        if f is None:
            return _openai_error(404, f"No such File object: {rest[0] if rest else ''}", "id")
        if method == "GET" and rest[1:] == ["content"]:
            return 200, f["_data"], {"content-type": "application/octet-stream"}
        if method == "GET" and len(rest) == 1:
            return _json(200, _public(f))
        return _openai_error(404, "Invalid URL")

    def _openai_batches(self, method: str, rest: list[str], body: bytes,
                        query: dict[str, str]) -> Answer:
        if method == "POST" and not rest:
            return self._openai_create(json.loads(body or b"{}"))
        if method == "GET" and not rest:
            listed = sorted((b for b in self.batches.values() if b.get("object") == "batch"),
                            key=lambda b: (-b["created_at"], -b["_seq"]))
            if "after" in query:
                ids = [b["id"] for b in listed]
                listed = listed[ids.index(query["after"]) + 1:] if query["after"] in ids else []
            limit = int(query.get("limit", 20))
            page = [self._openai_view(b) for b in listed[:limit]]
            return _json(200, {"object": "list", "data": page,
                               "first_id": page[0]["id"] if page else None,
                               "last_id": page[-1]["id"] if page else None,
                               "has_more": len(listed) > limit})
        batch = self.batches.get(rest[0])
        if batch is None or batch.get("object") != "batch":
            return _openai_error(404, f"No batch found with id '{rest[0]}'.", "batch_id")
        if method == "GET" and len(rest) == 1:
            return _json(200, self._openai_view(batch))
        if method == "POST" and rest[1:] == ["cancel"]:
            if batch["status"] in OPENAI_ENDED:
                return _openai_error(409, f"Cannot cancel a batch with status {batch['status']}.")
            batch["_cancel"] = time.time()
            batch["status"], batch["cancelling_at"] = "cancelling", int(time.time())
            return _json(200, _public(batch))
        return _openai_error(404, "Invalid URL")

    def _openai_create(self, req: dict) -> Answer:
        for name in ("input_file_id", "endpoint", "completion_window"):
            if name not in req:
                return _openai_error(400, f"Missing required parameter: '{name}'.", name)
        if req["completion_window"] != "24h":
            return _openai_error(400, f"Invalid value: '{req['completion_window']}'. Supported "
                                 "values are: '24h'.", "completion_window")
        if req["endpoint"] not in ("/v1/chat/completions", "/v1/completions", "/v1/embeddings",
                                   "/v1/responses"):
            return _openai_error(400, f"Invalid value: '{req['endpoint']}'.", "endpoint")
        f = self.files.get(req["input_file_id"])
        if f is None:
            return _openai_error(404, f"No such File object: {req['input_file_id']}",
                                 "input_file_id")
        if f["purpose"] != "batch":
            return _openai_error(400, "The input file must be uploaded with purpose 'batch'.",
                                 "input_file_id")
        now = time.time()
        bid = f"batch_{uuid.uuid4().hex[:24]}"
        lines, errors, seen = [], [], set()
        for n, raw in enumerate(f["_data"].splitlines(), 1):
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except ValueError:
                errors.append(("invalid_json_line", "This line is not parseable as valid JSON.", n))
                continue
            cid = line.get("custom_id")
            if cid is None or cid in seen:
                errors.append(("duplicate_custom_id" if cid else "missing_required_parameter",
                               "The custom_id for this request is a duplicate of another "
                               "request. The custom_id parameter must be unique for each "
                               "request in a batch." if cid else "custom_id is required", n))
            elif line.get("method") != "POST":
                errors.append(("invalid_method", "Only POST requests are accepted.", n))
            elif line.get("url") != req["endpoint"]:
                errors.append(("mismatched_endpoint", f"The provided url '{line.get('url')}' "
                               f"does not match the batch endpoint '{req['endpoint']}'.", n))
            seen.add(cid)
            lines.append((cid, line.get("body") or {}))
        batch = {"id": bid, "object": "batch", "endpoint": req["endpoint"], "errors": None,
                 "input_file_id": f["id"], "completion_window": "24h", "status": "validating",
                 "output_file_id": None, "error_file_id": None, "created_at": int(now),
                 "in_progress_at": None, "expires_at": int(now) + WINDOW_S,
                 "finalizing_at": None, "completed_at": None, "failed_at": None,
                 "expired_at": None, "cancelling_at": None, "cancelled_at": None,
                 "request_counts": {"total": 0, "completed": 0, "failed": 0},
                 "metadata": req.get("metadata"), "_seq": len(self.batches), "_t0": now,
                 "_lines": lines, "_errors": errors}
        self.batches[bid] = batch
        if not errors:
            self._note("openai", bid, lines)
        return _json(200, _public(batch))

    def _openai_view(self, b: dict) -> dict:
        """The batch as a GET shows it now: moved on by the time that passed (and the script)."""
        if b["status"] in OPENAI_ENDED:
            return _public(b)
        now = time.time()
        if b["_errors"]:
            b["status"], b["failed_at"] = "failed", int(now)
            b["errors"] = {"object": "list", "data": [
                {"code": c, "message": m, "param": None, "line": n} for c, m, n in b["_errors"]]}
            return _public(b)
        total = len(b["_lines"])
        b["request_counts"]["total"] = total
        if b["in_progress_at"] is None:
            b["in_progress_at"] = int(now)
            b["status"] = "in_progress"
            return _public(b)                         # the first look after validation
        if b.get("_cancel") is None and (self.batch_hold or now - b["_t0"] < self.batch_delay_s):
            share = 0.0 if self.batch_hold else (now - b["_t0"]) / max(self.batch_delay_s, 1e-9)
            b["request_counts"]["completed"] = int(total * min(share, 1.0) * 0.9)
            return _public(b)
        if b["status"] == "in_progress" and b.get("_cancel") is None:
            b["status"], b["finalizing_at"] = "finalizing", int(now)
            return _public(b)
        self._openai_finish(b)
        return _public(b)

    def _openai_finish(self, b: dict) -> None:
        """Run the batch's requests now; write its output and error files."""
        cancelled = b.get("_cancel") is not None
        out, err = [], []
        expired = False
        for cid, body in b["_lines"]:
            prompt = _prompt_of(body)
            if cancelled or self._expires(prompt):
                expired |= not cancelled
                code = "batch_cancelled" if cancelled else "batch_expired"
                err.append({"id": f"batch_req_{uuid.uuid4().hex[:24]}", "custom_id": cid,
                            "response": None, "error": {
                                "code": code, "message": "This request could not be executed "
                                "before the completion window expired." if not cancelled else
                                "This request was cancelled before it was executed."}})
                continue
            status, data, _ = self._reply("/v1/chat/completions", body, prompt,
                                          self._next_fault(prompt))
            try:
                parsed = json.loads(data)
            except ValueError:
                status, parsed = 500, {"error": {"message": "The server had an error while "
                                                 "processing your request.",
                                                 "type": "server_error"}}
            line = {"id": f"batch_req_{uuid.uuid4().hex[:24]}", "custom_id": cid,
                    "response": {"status_code": status,
                                 "request_id": uuid.uuid4().hex, "body": parsed},
                    "error": None}
            (out if status == 200 else err).append(line)
        rng = random.Random(self.batch_seed + b["_seq"])
        rng.shuffle(out)
        rng.shuffle(err)
        now = int(time.time())
        for key, lines in (("output_file_id", out), ("error_file_id", err)):
            if lines:
                fid = f"file-{uuid.uuid4().hex[:24]}"
                data = b"".join(json.dumps(x).encode() + b"\n" for x in lines)
                self.files[fid] = {"id": fid, "object": "file", "bytes": len(data),
                                   "created_at": now, "filename": f"{b['id']}_{key[:-8]}.jsonl",
                                   "purpose": "batch_output", "status": "processed",
                                   "expires_at": None, "status_details": None, "_data": data}
                b[key] = fid
        b["request_counts"] = {"total": len(b["_lines"]), "completed": len(out),
                               "failed": len(err)}
        if cancelled:
            b["status"], b["cancelled_at"] = "cancelled", now
        elif expired:
            b["status"], b["expired_at"] = "expired", now
        else:
            b["status"], b["completed_at"] = "completed", now

    # -- Anthropic ----------------------------------------------------------------------------
    def _anthropic_batches(self, method: str, rest: list[str], body: bytes,
                           query: dict[str, str]) -> Answer:
        if method == "POST" and not rest:
            return self._anthropic_create(json.loads(body or b"{}"))
        if method == "GET" and not rest:
            listed = sorted((b for b in self.batches.values() if b.get("type") == "message_batch"),
                            key=lambda b: -b["_seq"])
            if "after_id" in query:
                ids = [b["id"] for b in listed]
                listed = (listed[ids.index(query["after_id"]) + 1:]
                          if query["after_id"] in ids else [])
            limit = int(query.get("limit", 20))
            page = [self._anthropic_view(b) for b in listed[:limit]]
            return _json(200, {"data": page, "has_more": len(listed) > limit,
                               "first_id": page[0]["id"] if page else None,
                               "last_id": page[-1]["id"] if page else None})
        batch = self.batches.get(rest[0])
        if batch is None or batch.get("type") != "message_batch":
            return _anthropic_error(404, "not_found_error", f"Message batch {rest[0]} not found.")
        if method == "GET" and len(rest) == 1:
            return _json(200, self._anthropic_view(batch))
        if method == "GET" and rest[1:] == ["results"]:
            self._anthropic_view(batch)
            if batch["processing_status"] != "ended":
                return _anthropic_error(400, "invalid_request_error",
                                        f"Message batch {batch['id']} has not finished "
                                        "processing; its results are not available yet.")
            data = b"".join(json.dumps(x).encode() + b"\n" for x in batch["_results"])
            return 200, data, {"content-type": "application/binary"}
        if method == "POST" and rest[1:] == ["cancel"]:
            if batch["processing_status"] == "in_progress":
                batch["processing_status"] = "canceling"
                batch["cancel_initiated_at"] = _iso(time.time())
            return _json(200, _public(batch))
        return _anthropic_error(404, "not_found_error", "Not found.")

    def _anthropic_create(self, req: dict) -> Answer:
        requests = req.get("requests")
        if not isinstance(requests, list) or not requests:
            return _anthropic_error(400, "invalid_request_error",
                                    "requests: List should have at least 1 item after validation")
        if len(requests) > 100_000:
            return _anthropic_error(400, "invalid_request_error", "requests: List should have "
                                    "at most 100000 items after validation")
        seen = set()
        for n, r in enumerate(requests):
            cid = r.get("custom_id")
            if not isinstance(cid, str) or not ANTHROPIC_ID.match(cid):
                return _anthropic_error(400, "invalid_request_error",
                                        f"requests.{n}.custom_id: String should match pattern "
                                        "'^[a-zA-Z0-9_-]{1,64}$'")
            if cid in seen:
                return _anthropic_error(400, "invalid_request_error",
                                        f"Duplicate custom_id: {cid}. Each request in a batch "
                                        "must have a unique custom_id.")
            seen.add(cid)
            if not isinstance(r.get("params"), dict):
                return _anthropic_error(400, "invalid_request_error",
                                        f"requests.{n}.params: Field required")
        now = time.time()
        bid = f"msgbatch_{uuid.uuid4().hex[:24]}"
        lines = [(r["custom_id"], r["params"]) for r in requests]
        batch = {"id": bid, "type": "message_batch", "processing_status": "in_progress",
                 "request_counts": {"processing": len(lines), "succeeded": 0, "errored": 0,
                                    "canceled": 0, "expired": 0},
                 "ended_at": None, "created_at": _iso(now), "expires_at": _iso(now + WINDOW_S),
                 "archived_at": None, "cancel_initiated_at": None, "results_url": None,
                 "_seq": len(self.batches), "_t0": now, "_lines": lines}
        self.batches[bid] = batch
        self._note("anthropic", bid, lines)
        return _json(200, _public(batch))

    def _anthropic_view(self, b: dict) -> dict:
        if b["processing_status"] == "ended":
            return _public(b)
        now = time.time()
        canceling = b["processing_status"] == "canceling"
        if not canceling and (self.batch_hold or now - b["_t0"] < self.batch_delay_s):
            return _public(b)
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        results = []
        for cid, params in b["_lines"]:
            prompt = _prompt_of(params)
            if canceling or self._expires(prompt):
                kind = "canceled" if canceling else "expired"
                counts[kind] += 1
                results.append({"custom_id": cid, "result": {"type": kind}})
                continue
            status, data, _ = self._reply("/v1/messages", params, prompt,
                                          self._next_fault(prompt))
            try:
                parsed = json.loads(data)
            except ValueError:
                status, parsed = 500, json.loads(_anthropic_error(500, "api_error",
                                                                  "Internal server error")[1])
            if status == 200:
                counts["succeeded"] += 1
                results.append({"custom_id": cid, "result": {"type": "succeeded",
                                                             "message": parsed}})
            else:
                counts["errored"] += 1
                results.append({"custom_id": cid, "result": {"type": "errored", "error": parsed}})
        random.Random(self.batch_seed + b["_seq"]).shuffle(results)
        b.update(processing_status="ended", request_counts=counts, ended_at=_iso(now),
                 results_url=f"{self.anthropic_url}/v1/messages/batches/{b['id']}/results",
                 _results=results)
        return _public(b)


def _public(obj: dict) -> dict:
    """An object as the service shows it: without the double's own bookkeeping (`_...`)."""
    return {k: v for k, v in obj.items() if not k.startswith("_")}


def _prompt_of(body: dict) -> str:
    """The text of a request body's messages, as faults and scripted answers look it up."""
    from tests.support.fake_api import _prompt_text

    return _prompt_text(body)


def _multipart(content_type: str, body: bytes) -> dict[str, tuple[str | None, bytes]]:
    """A multipart/form-data body: field name -> (file name, bytes)."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    fields = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name:
            fields[name] = (part.get_filename(), part.get_payload(decode=True) or b"")
    return fields
