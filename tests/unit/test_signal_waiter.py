"""A stop signal is seen wherever in the wait the handler happens to run.

The handler that set a `threading.Event` while the main thread was inside `Event.wait()` hung
`companion run` and `dice-sim` for good (about 1 in 140 stops). Here a tracer delivers SIGTERM
at every traced line of the wait in turn; with the old pattern the run hangs at the 7th.
"""

import subprocess
import sys
import textwrap

PROBE = textwrap.dedent("""
    import os, signal, sys
    from companion.cli.stopping import SignalWaiter
    for k in range(1, 60):
        w = SignalWaiter()
        w.catch(signal.SIGTERM, "stop")
        count = [0]
        def tracer(frame, event, arg):
            count[0] += 1
            if count[0] == k:
                os.kill(os.getpid(), signal.SIGTERM)  # the handler runs right here, mid-wait
            return tracer
        sys.settrace(tracer)
        while "stop" not in w.wait(0.002):
            pass
        sys.settrace(None)
        w.close()
    print("all seen")
""")


def test_a_signal_at_any_point_of_the_wait_is_seen():
    # SIGKILL on timeout: a hung process ignores SIGTERM (its handler is what hangs)
    proc = subprocess.Popen([sys.executable, "-c", PROBE], stdout=subprocess.PIPE, text=True)
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("a signal delivered inside the wait hung it") from None
    assert proc.returncode == 0 and "all seen" in out


def test_notes_from_threads_and_signals_are_returned_once_in_order():
    import os
    import signal
    import threading

    from companion.cli.stopping import SignalWaiter

    w = SignalWaiter()
    try:
        w.catch(signal.SIGUSR1, "roll")
        os.kill(os.getpid(), signal.SIGUSR1)
        t = threading.Thread(target=w.note, args=("stop",))
        t.start()
        t.join()
        assert w.noted("stop")
        assert w.wait(1.0) == ["roll", "stop"]
        assert w.wait(0.01) == []
    finally:
        w.close()
    assert signal.getsignal(signal.SIGUSR1) is signal.SIG_DFL or callable(signal.getsignal(signal.SIGUSR1))


OTHER_THREAD = textwrap.dedent("""
    import signal, threading, time
    from companion.cli.stopping import SignalWaiter
    w = SignalWaiter()
    w.catch(signal.SIGTERM, "stop")
    ready = threading.Event()
    def bystander():
        ready.set()
        time.sleep(60)
    t = threading.Thread(target=bystander, daemon=True)
    t.start()
    ready.wait()
    threading.Timer(0.2, lambda: signal.pthread_kill(t.ident, signal.SIGTERM)).start()
    assert "stop" in w.wait(None)  # no timeout: only the wakeup fd can wake it
    w.close()
    print("seen")
""")


def test_a_signal_taken_by_another_thread_wakes_the_main_loop():
    """Any thread may take a process's signal; the main thread waiting in select() must still wake."""
    proc = subprocess.Popen([sys.executable, "-c", OTHER_THREAD], stdout=subprocess.PIPE, text=True)
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("a signal taken by another thread never woke the main loop") from None
    assert proc.returncode == 0 and "seen" in out
