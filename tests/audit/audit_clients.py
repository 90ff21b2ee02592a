#!/usr/bin/python3
"""Clients for the audit round trip (tst_auditroundtrip.cpp): the official Kubernetes Python
client against `watchscope-cli serve --audit-log-path`, as two users. Prints ONE JSON line with
every request it made as the server answered it (user, user agent, resource, verb, the RV asked,
the HTTP status): what the served apiserver saw, to compare with what the audit source
reconstructs from the log.

  audit_clients.py --server URL --token-a FILE --token-b FILE [--loops 5]

Tokens are read from files so they never show on a command line.
"""

import argparse
import json
import sys

try:
    from kubernetes import client, watch
    from kubernetes.client.rest import ApiException
except ImportError as e:
    print(json.dumps({"fatal": "cannot import kubernetes: %s" % e}))
    sys.exit(3)


def core(server, token_file):
    cfg = client.Configuration()
    cfg.host = server
    with open(token_file, encoding="utf-8") as f:
        cfg.api_key = {"authorization": f.read().strip()}
    cfg.api_key_prefix = {"authorization": "Bearer"}
    api = client.ApiClient(cfg)
    return client.CoreV1Api(api), api.user_agent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--token-a", required=True)
    ap.add_argument("--token-b", required=True)
    ap.add_argument("--loops", type=int, default=5)
    a = ap.parse_args()
    requests = []

    def note(user, agent, verb, rv, status):
        requests.append({"user": user, "agent": agent, "resource": "configmaps", "verb": verb,
                         "rv": rv, "status": status})

    # alice: an informer's start. List (RV ""), list RV=0, watch from the list's RV until the
    # server ends it at timeoutSeconds.
    v1, agent = core(a.server, a.token_a)
    cms = v1.list_config_map_for_all_namespaces()
    note("alice", agent, "list", "", 200)
    v1.list_config_map_for_all_namespaces(resource_version="0")
    note("alice", agent, "list", "0", 200)
    rv = cms.metadata.resource_version
    for _ in watch.Watch().stream(v1.list_config_map_for_all_namespaces, resource_version=rv,
                                  timeout_seconds=2, allow_watch_bookmarks=True):
        pass
    note("alice", agent, "watch", rv, 200)

    # bob: client-go 0.20 against a 1.16 apiserver after a switch: the same RV, far ahead of
    # the cache, asked again and again (seed 002); each waits 3 s and gets 504.
    v1b, agent_b = core(a.server, a.token_b)
    future = str(int(rv) + 1000000)
    for _ in range(a.loops):
        try:
            v1b.list_config_map_for_all_namespaces(resource_version=future)
            note("bob", agent_b, "list", future, 200)
        except ApiException as e:
            note("bob", agent_b, "list", future, e.status)
    print(json.dumps({"requests": requests}))


if __name__ == "__main__":
    main()
