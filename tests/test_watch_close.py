"""A Watcher stops when closed: close() ends an ``async for`` on the loop that
calls it, an ``async for`` on a loop in another thread (close() scheduled on
that loop, or called from the other thread), and a ``for`` or a
``poll(timeout=None)`` blocked in another thread, each soon after the close
(the latency is measured and shown) and with no error; poll() on a closed
Watcher raises ValueError. Closing while a thread is taking events (a read
in C) ends it as well, every time. What a Watcher holds (its socket and its
wake-up pipe, as /proc/self/fd shows them) is gone once it is closed and
its waits have ended, and a forked child holds none of it."""

import asyncio
import os
import random
import threading
import time

import pytest

import netifc
from conftest import NO_DAD, own_netns
from nslab import REPORTS, blocked, in_forked_child, recheck_until

TIMEOUT = 10  # seconds a wait for the kernel, or a stuck thread, may take before the test fails
ENDED_WITHIN = 1.0  # seconds an iteration may take to end after close() (100 ms is the aim)
LATENCIES = {}


pytestmark = pytest.mark.usefixtures("netlink_backend")


@pytest.fixture
def ns():
    """A quiet namespace of the test's own (no event comes unless the test makes it)."""
    with own_netns("wclose", NO_DAD) as n:
        yield n


def report(kind, seconds):
    line = f"Watcher close -> {kind} ended: {seconds * 1000:.2f} ms"
    print(line)
    LATENCIES.setdefault(kind, []).append(seconds)
    if len(LATENCIES[kind]) == 1:
        REPORTS.append(line)


def held():
    """What this process's descriptors are, as /proc/self/fd tells: {fd: target}."""
    out = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            out[int(fd)] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the listing's own descriptor, closed meanwhile
            continue
    return out


def opened(before):
    """What the descriptors opened since `before` (a held()) are: {fd: target}."""
    return {fd: t for fd, t in held().items() if before.get(fd) != t}


def watcher_held():
    """A new Watcher and what it opened (its socket, and whatever else it
    holds to be woken: the targets), the thread's own netlink socket made
    before."""
    netifc.interfaces()  # the socket this thread keeps for its calls, made now
    before = held()
    w = netifc.Watcher()
    mine = set(opened(before).values())
    assert os.readlink(f"/proc/self/fd/{w.fileno()}") in mine
    return w, mine


def still_held(mine):
    """Which of them this process holds still."""
    return set(held().values()) & mine


def until_blocked(tid, what):
    """Until thread tid is asleep in its poll: no one is told when a thread
    enters a system call (nslab.recheck_until)."""
    recheck_until(lambda: blocked(tid), what, TIMEOUT, every=0.002)


class Told(list):
    """The events a consumer thread appends, told to a waiting thread by a Condition."""

    def __init__(self):
        super().__init__()
        self.cond = threading.Condition()

    def append(self, event):
        with self.cond:
            super().append(event)
            self.cond.notify_all()

    def wait_for(self, done, what):
        with self.cond:
            if not self.cond.wait_for(lambda: done(self), TIMEOUT):
                pytest.fail(f"{what}: not told in {TIMEOUT} s (told {list(self)})")


class AsyncTold(list):
    """The events a task on the running loop appends, told to another by an asyncio.Event."""

    def __init__(self):
        super().__init__()
        self.changed = asyncio.Event()

    def append(self, event):
        super().append(event)
        self.changed.set()

    async def wait_for(self, done, what):
        async def told():
            while not done(self):
                self.changed.clear()
                await self.changed.wait()

        try:
            await asyncio.wait_for(told(), TIMEOUT)
        except asyncio.TimeoutError:
            pytest.fail(f"{what}: not told in {TIMEOUT} s (told {list(self)})")


class Consumer:
    """fn() in a thread: when it ended (time.monotonic()), what it returned or raised."""

    def __init__(self, fn):
        self.value = self.error = self.ended = None
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(fn,), daemon=True)
        self.thread.start()
        self.started.wait(TIMEOUT)
        self.tid = self.thread.native_id

    def _run(self, fn):
        self.started.set()
        try:
            self.value = fn()
        except BaseException as e:  # handed to the test
            self.error = e
        self.ended = time.monotonic()

    def join(self, closed_at, kind):
        self.thread.join(TIMEOUT)
        assert not self.thread.is_alive(), f"{kind}: still running {TIMEOUT} s after close()"
        if self.error is not None:
            raise self.error
        took = self.ended - closed_at
        report(kind, took)
        assert took < ENDED_WITHIN, f"{kind}: ended {took:.3f} s after close()"
        return self.value


def change(ns, n):
    ns.ip("link", "add", f"c{n}", "type", "veth", "peer", "name", f"p{n}")


def seen_link(events, n):
    return any(isinstance(e, netifc.LinkAdded) and e.link.name == f"c{n}" for e in events)


# ---- blocking: for, poll(None) --------------------------------------------------------


def test_close_ends_a_for_blocked_in_another_thread(ns):
    w, mine = watcher_held()
    seen = Told()

    def iterate():
        for e in w:
            seen.append(e)
        return "ended"

    it = Consumer(iterate)
    change(ns, 0)  # one event through: iterating works, then waits for the next
    seen.wait_for(lambda told: seen_link(told, 0), "c0's LinkAdded")
    until_blocked(it.tid, "the iterating thread asleep in poll")
    closed_at = time.monotonic()
    w.close()
    assert it.join(closed_at, "for (another thread)") == "ended"
    assert w.closed and list(w) == []
    assert not still_held(mine)  # the socket and the pipe: all closed


def test_close_ends_a_poll_none_blocked_in_another_thread(ns):
    w, mine = watcher_held()
    it = Consumer(lambda: w.poll(timeout=None))
    until_blocked(it.tid, "the polling thread asleep in poll")
    closed_at = time.monotonic()
    w.close()
    assert it.join(closed_at, "poll(None) (another thread)") == []  # none came
    with pytest.raises(ValueError, match="closed"):
        w.poll(0)
    with pytest.raises(ValueError, match="closed"):
        w.poll(None)  # at once: it waits on nothing
    assert not still_held(mine)


def test_close_before_a_wait_ends_it_at_once(ns):
    """A close() that comes before the wait (a poll() started, not yet asleep):
    the wait ends at once, whatever the descriptors' numbers became since."""
    w = netifc.Watcher()
    w.close()
    t0 = time.monotonic()
    w._wait(None)  # the wait poll() and iterating make
    assert time.monotonic() - t0 < ENDED_WITHIN
    assert list(w) == [] and w.closed


def test_close_from_a_signal_handler_ends_the_wait(ns):
    """close() from a signal handler of the thread that waits (poll() is
    resumed after the handler, and ends then)."""
    import signal

    w = netifc.Watcher()
    closed_at = []

    def handler(*_):
        closed_at.append(time.monotonic())
        w.close()

    old = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        assert w.poll(TIMEOUT) == []
        ended = time.monotonic()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert closed_at and w.closed
    report("poll(timeout) (signal handler)", ended - closed_at[0])
    assert ended - closed_at[0] < ENDED_WITHIN


# ---- asyncio ------------------------------------------------------------------------


async def iterate_async(w, seen):
    async for e in w:
        seen.append(e)
    return "ended"


def test_close_on_the_same_loop_ends_async_for(ns):
    w, mine = watcher_held()

    async def main():
        seen = AsyncTold()
        task = asyncio.ensure_future(iterate_async(w, seen))
        change(ns, 0)
        await seen.wait_for(lambda told: seen_link(told, 0), "c0's LinkAdded")
        assert not task.done()  # back on its await: the socket's next notification
        closed_at = time.monotonic()
        w.close()
        result = await asyncio.wait_for(task, TIMEOUT)
        took = time.monotonic() - closed_at
        report("async for (same loop)", took)
        assert result == "ended" and took < ENDED_WITHIN
        async for _ in w:  # once closed: ends at once
            pytest.fail("an event from a closed Watcher")

    asyncio.run(main())
    assert not still_held(mine)


def test_the_socket_number_reused_on_the_loop(ns):
    """close() on the loop, and the socket's number at once another socket's,
    which the same loop then reads: the Watcher's wait ends without touching
    that number (it waited on copies of its own), so the new reader works."""
    import socket

    async def main():
        w = netifc.Watcher()
        seen = AsyncTold()
        task = asyncio.ensure_future(iterate_async(w, seen))
        change(ns, 0)
        await seen.wait_for(lambda told: seen_link(told, 0), "c0's LinkAdded")
        number = w.fileno()
        loop = asyncio.get_running_loop()
        a, b = socket.socketpair()
        try:
            w.close()
            os.dup2(a.fileno(), number)  # the number, free now, names another socket
            told = loop.create_future()
            loop.add_reader(number, lambda: told.done() or told.set_result(os.read(number, 16)))
            assert await asyncio.wait_for(task, TIMEOUT) == "ended"
            b.send(b"still read")
            assert await asyncio.wait_for(told, TIMEOUT) == b"still read"
            assert loop.remove_reader(number)  # registered still: nothing removed it
        finally:
            os.close(number)
            a.close()
            b.close()

    asyncio.run(main())


@pytest.mark.parametrize("how", ["call_soon_threadsafe", "directly"])
def test_close_from_another_thread_ends_async_for(ns, how):
    """The loop runs in a thread; the main thread closes: by the loop's
    call_soon_threadsafe, or close() called in the main thread itself."""
    w, mine = watcher_held()
    seen = Told()
    loops = []

    def run_loop():
        async def main():
            loops.append(asyncio.get_running_loop())
            return await iterate_async(w, seen)

        return asyncio.run(main())

    it = Consumer(run_loop)
    change(ns, 0)
    seen.wait_for(lambda told: seen_link(told, 0), "c0's LinkAdded")
    until_blocked(it.tid, "the loop's thread asleep in its select")
    closed_at = time.monotonic()
    if how == "call_soon_threadsafe":
        loops[0].call_soon_threadsafe(w.close)
    else:
        w.close()
    assert it.join(closed_at, f"async for (other thread, {how})") == "ended"
    assert w.closed
    assert not still_held(mine)


# ---- races ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["for", "poll"])
def test_close_while_events_flow_ends_every_time(ns, kind):
    """Events flowing (addresses added and removed as fast as ip can), and
    close() at a random point of the consumer's work: in a read (in C), in
    its wait, or between. It ends each time, without an error."""
    ns.ip("link", "add", "f0", "type", "veth", "peer", "name", "f1")
    ns.ip("link", "set", "f0", "up")
    stop = threading.Event()

    def churn():
        while not stop.is_set():
            lines = [f"addr add 198.51.100.{k}/32 dev f0" for k in range(1, 40)]
            lines += [f"addr del 198.51.100.{k}/32 dev f0" for k in range(1, 40)]
            ns.batch(lines)

    churner = threading.Thread(target=churn, daemon=True)
    churner.start()
    try:
        for _ in range(25):
            close_while_consumed(kind)
    finally:
        stop.set()
        churner.join(TIMEOUT)
    took = LATENCIES[f"{kind} under churn"]
    print(f"{kind} under churn: {len(took)} closes, worst {max(took) * 1000:.2f} ms")


def close_while_consumed(kind):
    """One Watcher consumed in a thread (for, or poll(None) in a loop),
    closed once it has had a random number of events, at a point of its work (its
    socket checked closed after: ip's pipes come and go meanwhile)."""
    w = netifc.Watcher()
    mine = {os.readlink(f"/proc/self/fd/{w.fileno()}")}
    count = [0]
    # The close comes once the consumer has had a random number of events
    # (up to two of the churn's batches of 78): in the midst of a batch (in
    # a read, or between two), or at its end (in its wait), as it falls.
    goal = random.randint(1, 156)
    reached = threading.Event()

    def consume():
        if kind == "for":
            for _ in w:
                count[0] += 1
                if count[0] >= goal:
                    reached.set()
        else:
            while not w.closed:
                try:
                    count[0] += len(w.poll(None))
                except ValueError:  # closed between the test and the call
                    assert w.closed
                if count[0] >= goal:
                    reached.set()
        return count[0]

    it = Consumer(consume)
    if not reached.wait(TIMEOUT):
        pytest.fail(f"{goal} events: only {count[0]} in {TIMEOUT} s")
    closed_at = time.monotonic()
    w.close()
    assert it.join(closed_at, f"{kind} under churn") > 0
    assert not still_held(mine)


# ---- fork -----------------------------------------------------------------------------


def test_a_forked_child_holds_none_of_it(ns):
    """The socket and the wake-up pipe are the parent's: a forked child holds
    neither, and finds the Watcher closed (iterating ends, poll() raises)."""
    w, mine = watcher_held()

    def child():
        out = {"closed": w.closed, "events": list(w)}
        try:
            w.poll(0)
        except ValueError:
            out["poll"] = "ValueError"
        w.close()  # nothing to do there, and no error
        out["held"] = sorted(set(held().values()) & mine)
        return out

    got = in_forked_child(child)
    assert got == {"closed": True, "events": [], "poll": "ValueError", "held": []}
    assert not w.closed  # the parent's is open still
    it = Consumer(lambda: w.poll(None))
    until_blocked(it.tid, "the polling thread asleep in poll")
    closed_at = time.monotonic()
    w.close()
    assert it.join(closed_at, "poll(None) after a fork") == []
    assert not still_held(mine)


FORKS_AMID_WATCHERS = 400


def test_forks_amid_watchers_made_and_dropped(ns):
    """Forks while another thread makes Watchers and lets them go (dropped
    unclosed, to their finalizer; closed; by ``with``): in every child the
    descriptors the forking thread made before the fork are open still.  A
    child closes the pipes of the Watchers the parent held at the fork, and
    never a number a thread of the parent had closed and reused meanwhile
    (a finalizer closing without the lock the fork takes, or a Watcher made
    after the fork handler listed them, did that to 7 of 400 children)."""
    stop, made = threading.Event(), [0]

    def churn():
        while not stop.is_set():
            kind = made[0] % 3
            if kind == 0:
                w = netifc.Watcher()
                del w  # its finalizer closes the pipe
            elif kind == 1:
                with netifc.Watcher():
                    pass
            else:
                netifc.Watcher().close()
            made[0] += 1

    t = threading.Thread(target=churn, daemon=True)
    t.start()
    lost = []
    try:
        recheck_until(lambda: made[0] >= 3, "the thread making Watchers under way", TIMEOUT)
        for n in range(FORKS_AMID_WATCHERS):
            r, w = os.pipe()
            try:

                def child(r=r, w=w):
                    bad = []
                    for fd in (r, w):
                        try:
                            os.fstat(fd)
                        except OSError as e:
                            bad.append(f"{fd}: {e.strerror}")
                    return bad

                got = in_forked_child(child, TIMEOUT, f"fork {n}")
                if got:
                    lost.append((n, got))
            finally:
                os.close(r)
                os.close(w)
    finally:
        stop.set()
        t.join(TIMEOUT)
    assert not t.is_alive(), "the thread making Watchers did not end"
    print(f"forks amid Watchers: {FORKS_AMID_WATCHERS} forks, {made[0]} Watchers made meanwhile")
    assert not lost, f"children that lost a descriptor of their own: {len(lost)}: {lost[:5]}"
