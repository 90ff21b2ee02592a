#!/usr/bin/python3
"""The official Kubernetes Python client against `watchscope-cli serve`.

Driven by tests/serve/tst_servepython.cpp. Runs a fixed sequence of calls and prints ONE JSON
line with what it saw; the C++ test asserts on it. Every step records its outcome (or the
exception it met) instead of stopping the run, so the test can say which step went wrong.

  python_client.py --server URL [--ca F] [--cert F --key F] [--token-file F]
                   [--namespace NS] [--steps list,watch,gone,future,watchlist]

The token is read from a file so it never shows on a command line.
"""

import argparse
import json
import sys
import threading
import time
import traceback

try:
    from kubernetes import client, watch
except ImportError as e:  # the C++ test checks the import before running this
    print(json.dumps({"fatal": "cannot import kubernetes: %s" % e}))
    sys.exit(3)


def api_client(args):
    cfg = client.Configuration()
    cfg.host = args.server
    if args.server.startswith("https://"):
        cfg.verify_ssl = True
        cfg.ssl_ca_cert = args.ca
        cfg.cert_file = args.cert
        cfg.key_file = args.key
    if args.token_file:
        with open(args.token_file, encoding="utf-8") as f:
            token = f.read().strip()
        cfg.api_key = {"authorization": token}
        cfg.api_key_prefix = {"authorization": "Bearer"}
    return client.ApiClient(cfg)


def api_error(e):
    """An ApiException as plain data: status, reason and the Status body's fields."""
    out = {"exception": "ApiException", "status": e.status, "reason": e.reason}
    if e.body:
        try:
            body = json.loads(e.body)
            out["bodyReason"] = body.get("reason")
            out["bodyCode"] = body.get("code")
            out["bodyMessage"] = body.get("message")
            out["bodyDetails"] = body.get("details")
            out["body"] = e.body.decode() if isinstance(e.body, bytes) else str(e.body)
        except (ValueError, TypeError):
            out["body"] = str(e.body)[:300]
    return out


def other_error(e):
    return {"exception": type(e).__name__, "message": str(e)[:300],
            "trace": traceback.format_exc()[-600:]}


def step_list(v1, result):
    cms = v1.list_config_map_for_all_namespaces()
    result["list"] = {
        "count": len(cms.items),
        "namespaces": len({cm.metadata.namespace for cm in cms.items}),
        "resourceVersion": cms.metadata.resource_version,
    }


def step_watch(v1, ns, result):
    """Lists NS, creates a ConfigMap, watches from the list's version: ADDED, then the script
    deletes it and the same stream shows DELETED."""
    name = "py-watched"
    listed = v1.list_namespaced_config_map(ns)
    rv = listed.metadata.resource_version
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data={"from": "python"})
    created = v1.create_namespaced_config_map(ns, body)
    out = {"listRv": rv, "listCount": len(listed.items),
           "createdRv": created.metadata.resource_version, "events": []}
    result["watch"] = out
    deleter = None
    w = watch.Watch()
    started = time.monotonic()
    for event in w.stream(v1.list_namespaced_config_map, ns, resource_version=rv,
                          timeout_seconds=10):
        obj = event["object"]
        out["events"].append({"type": event["type"], "name": obj.metadata.name,
                              "namespace": obj.metadata.namespace,
                              "rv": obj.metadata.resource_version,
                              "data": obj.data,
                              "at": round(time.monotonic() - started, 3)})
        if event["type"] == "ADDED" and obj.metadata.name == name and deleter is None:
            # From another thread: the stream's generator must keep being read meanwhile.
            def delete():
                try:
                    v1.delete_namespaced_config_map(name, ns)
                    out["deleted"] = True
                except Exception as e:  # pylint: disable=broad-except
                    out["deleteError"] = other_error(e)
            deleter = threading.Thread(target=delete)
            deleter.start()
        if event["type"] == "DELETED" and obj.metadata.name == name:
            w.stop()
    if deleter:
        deleter.join()
    out["seconds"] = round(time.monotonic() - started, 3)


def step_gone(v1, ns, result):
    """Watches from resourceVersion 1, long compacted out of the watch cache: with
    timeout_seconds the client does not retry and raises; without it, it retries once and
    then raises."""
    out = {}
    result["gone"] = out
    for key, kwargs in (("withTimeout", {"timeout_seconds": 5}), ("withRetry", {})):
        events = []
        try:
            for event in watch.Watch().stream(v1.list_namespaced_config_map, ns,
                                              resource_version="1", **kwargs):
                events.append(event["type"])
                if len(events) >= 5:
                    break
            out[key] = {"exception": None, "events": events}
        except client.rest.ApiException as e:
            out[key] = api_error(e)
            out[key]["events"] = events
        except Exception as e:  # pylint: disable=broad-except
            out[key] = other_error(e)


def step_future(v1, result):
    """A list at a version the server has not reached: 504 after the cache's wait, and the
    client's urllib3 does not retry a 504, so one attempt."""
    started = time.monotonic()
    try:
        v1.list_config_map_for_all_namespaces(resource_version="99999999")
        out = {"exception": None}
    except client.rest.ApiException as e:
        out = api_error(e)
        out["retryAfter"] = (e.headers or {}).get("Retry-After")
    except Exception as e:  # pylint: disable=broad-except
        out = other_error(e)
    out["seconds"] = round(time.monotonic() - started, 3)
    result["future"] = out


def step_watchlist(v1, result):
    """A watch-list as client-go 0.27+ sends it (sendInitialEvents=true,
    resourceVersionMatch=NotOlderThan, allowWatchBookmarks=true). This python3-kubernetes has no
    send_initial_events argument, so the generic call_api sends the query: a server with the
    WatchList gate off answers 422 (raised as ApiException), one with it on streams the objects
    and then the BOOKMARK annotated k8s.io/initial-events-end."""
    out = {"exception": None, "added": 0, "bookmarks": 0, "initialEventsEnd": False}
    result["watchlist"] = out
    query = [("watch", "true"), ("sendInitialEvents", "true"),
             ("resourceVersionMatch", "NotOlderThan"), ("allowWatchBookmarks", "true"),
             ("timeoutSeconds", "10")]
    try:
        resp = v1.api_client.call_api("/api/v1/configmaps", "GET", query_params=query,
                                      auth_settings=["BearerToken"], _preload_content=False,
                                      _return_http_data_only=True)
    except client.rest.ApiException as e:
        result["watchlist"] = api_error(e)
        return
    buffer = b""
    for chunk in resp.stream(4096):
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            event = json.loads(line)
            if event["type"] == "ADDED":
                out["added"] += 1
            elif event["type"] == "BOOKMARK":
                out["bookmarks"] += 1
                annotations = event["object"]["metadata"].get("annotations") or {}
                if annotations.get("k8s.io/initial-events-end") == "true":
                    out["initialEventsEnd"] = True
        if out["initialEventsEnd"]:
            break
    resp.release_conn()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", required=True)
    p.add_argument("--ca")
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--token-file")
    p.add_argument("--namespace", default="py")
    p.add_argument("--steps", default="list,watch,future,gone")
    args = p.parse_args()

    v1 = client.CoreV1Api(api_client(args))
    result = {"steps": args.steps.split(",")}
    for step in result["steps"]:
        try:
            if step == "list":
                step_list(v1, result)
            elif step == "watch":
                step_watch(v1, args.namespace, result)
            elif step == "gone":
                step_gone(v1, args.namespace, result)
            elif step == "future":
                step_future(v1, result)
            elif step == "watchlist":
                step_watchlist(v1, result)
            else:
                result.setdefault("errors", {})[step] = {"exception": "unknown step"}
        except client.rest.ApiException as e:
            result.setdefault("errors", {})[step] = api_error(e)
        except Exception as e:  # pylint: disable=broad-except
            result.setdefault("errors", {})[step] = other_error(e)
    print(json.dumps(result, sort_keys=True))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
