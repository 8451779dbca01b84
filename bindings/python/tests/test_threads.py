"""Deciding from several threads: the same answers as from one, and the GIL
released while the engine decides."""

import sys
import threading
import time

import charter
from conftest import ENTITIES, POLICIES

REQUESTS = [
    ('User::"alice"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 4}),
    ('User::"bob"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 4}),
    ('User::"carol"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 4}),
    ('User::"alice"', 'Action::"view"', 'Doc::"d"', {"mfa": True}),
    ('User::"alice"', 'Action::"view"', 'Doc::"d"', {}),
]


def answers(decisions):
    return [(d.decision, d.reasons, d.errors) for d in decisions]


def test_threads_decide_as_one_does():
    engine = charter.compile(POLICIES)
    entities = charter.Entities.from_json(ENTITIES)
    expected = answers(engine.authorize(*r, entities=entities) for r in REQUESTS)
    handle = charter.EngineHandle(engine)
    prepared = [engine.prepare(*r) for r in REQUESTS]
    failures = []

    def work(kind):
        try:
            for _ in range(300):
                if kind == 0:
                    got = answers(engine.authorize(*r, entities=entities) for r in REQUESTS)
                elif kind == 1:
                    got = answers(engine.authorize_batch(REQUESTS * 4, entities))[: len(REQUESTS)]
                elif kind == 2:
                    got = answers(engine.authorize_request(p, entities) for p in prepared)
                else:
                    got = answers(handle.authorize(*r, entities=entities) for r in REQUESTS)
                if got != expected:
                    failures.append((kind, got))
                    return
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append((kind, repr(e)))

    threads = [threading.Thread(target=work, args=(i % 4,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_swap_while_deciding():
    allow = charter.compile('@id("allow") permit (principal, action, resource);')
    deny = charter.compile('@id("deny") forbid (principal, action, resource);')
    handle = charter.EngineHandle(allow)
    seen = set()
    failures = []
    stop = threading.Event()

    def decide():
        try:
            while not stop.is_set():
                for d in handle.authorize_batch([('U::"u"', 'Action::"a"', 'R::"r"')] * 50):
                    seen.add(tuple(d.reasons))
        except Exception as e:  # noqa: BLE001
            failures.append(repr(e))

    threads = [threading.Thread(target=decide) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(200):
        handle.swap(deny if i % 2 == 0 else allow)
    stop.set()
    for t in threads:
        t.join()
    assert failures == []
    assert handle.generation == 201
    assert seen <= {("allow",), ("deny",)}  # one engine or the other, never a mix


def test_the_gil_is_released_while_deciding():
    # With a switch interval longer than the test, the main thread gives up
    # the GIL only where something releases it: a thread counting in Python
    # moves while the main thread is inside authorize_batch only if the
    # binding released the GIL there. The main thread tries a bounded number
    # of batches; with the GIL held, the count would never move in any.
    engine = charter.compile(POLICIES)
    entities = charter.Entities.from_json(ENTITIES)
    batch = [engine.prepare(*r) for r in REQUESTS] * 20000
    count = [0]
    stop = [False]
    started = threading.Event()

    def spin():
        started.set()
        while not stop[0]:
            count[0] += 1
            time.sleep(1e-4)  # gives the GIL back, so that the main thread can go on

    interval = sys.getswitchinterval()
    sys.setswitchinterval(100)
    spinner = threading.Thread(target=spin)
    try:
        spinner.start()
        started.wait()
        moved = False
        for _ in range(50):
            before = count[0]
            engine.authorize_batch(batch, entities)
            if count[0] != before:
                moved = True
                break
    finally:
        stop[0] = True
        sys.setswitchinterval(interval)
        spinner.join()
    assert moved
