"""rocsys-top's user regions for Python programs.

    import rocsys

    with rocsys.region("load"):       # a region: count, total, mean, min, max per thread
        data = load()

    @rocsys.profile                   # every call of solve() is a region named "solve"
    def solve(data): ...

    @rocsys.profile("step")           # ... or a region with a name of its own
    def step(): ...

    rocsys.mark("checkpoint")         # an instant event

    rocsys.begin("request")           # a latency point (rocsys-top --causal): its arrival ...
    rocsys.end("request")             # ... and its departure

Under rocsys-top (which puts this module on the target's PYTHONPATH) the calls go to the
user-region API of the preloaded collector (rocsys_user_push / _pop / _mark, see
include/rocsys/user.h), so they show in the Regions view, as `[region] NAME` nodes of the call
tree, in profile.txt and as slices in trace.pftrace, with exact counts and times. Only the
regions are recorded: no function is traced.

Anywhere else the module does nothing and costs nothing: it does not even import ctypes,
region() returns one shared no-op context manager, profile returns the function itself
(unchanged: no wrapper, no cost per call), mark(), begin(), end(), start_sampling() and
stop_sampling() return
at once, and `active` is False.

Regions are per thread, they nest, and a region is closed even when an exception leaves it.
Names are text (or bytes), sent as UTF-8; the collector keeps at most 127 bytes of a name and
4,096 distinct names per process. Pure Python; CPython 3.6 and later (it imports on 2.7).
"""

import os as _os

__all__ = ["active", "region", "profile", "mark", "begin", "end", "start_sampling", "stop_sampling"]

# Names whose region objects (a class each, and the UTF-8 bytes) are kept; others work as well,
# a little slower. The collector itself takes 4,096 distinct names.
_CACHE_MAX = 1024

# Code flags of functions whose body does not run inside the call (generator = 0x20,
# coroutine = 0x80, iterable coroutine = 0x100, async generator = 0x200).
_SUSPENDING = 0x20 | 0x80 | 0x100 | 0x200

try:
    _text = unicode  # noqa: F821 (Python 2)
except NameError:
    _text = str


def _collector():
    """The collector's functions (push, pop, mark, start, stop, begin, end), or None when the program does
    not run under rocsys-top.

    ctypes is imported only when rocsys-top's session variable is set. The functions are looked
    up in the process's global scope, where the preloaded collector comes right after the
    program, before any library (librocsys-user.so's stubs among them); rocsys_user_active()
    then says whether it records: it is 0 in the stubs and in a collector left dormant (a
    process that rocsys-top does not profile, with --no-follow). PyDLL keeps the GIL over the
    calls, which return in well under a microsecond: releasing and taking it again would cost
    more than the call, and hand the GIL to another thread at every region."""
    if "ROCSYS_SESSION" not in _os.environ:
        return None
    try:
        import ctypes

        lib = ctypes.PyDLL(None)
        fns = [
            getattr(lib, "rocsys_user_" + n)
            for n in ("active", "push", "pop", "mark", "start_sampling", "stop_sampling", "begin",
                      "end")
        ]
    except (ImportError, OSError, AttributeError):
        return None
    is_active, push, pop, mark, start, stop, begin, end = fns
    is_active.argtypes = pop.argtypes = start.argtypes = stop.argtypes = ()
    is_active.restype = ctypes.c_int
    if not is_active():
        return None
    # arguments are bytes objects, passed as char * without argtypes' conversion; results are
    # not needed (None spares building an int)
    push.restype = pop.restype = mark.restype = start.restype = stop.restype = None
    begin.restype = end.restype = None
    return push, pop, mark, start, stop, begin, end


def _encode(name):
    """name as the UTF-8 bytes the collector takes."""
    if isinstance(name, bytes):
        return name
    if not isinstance(name, _text):
        name = _text(name)
    return name.encode("utf-8", "replace")


def _suspends(func):
    """Whether func is a generator, coroutine or async generator function, whose body runs
    after the call returns (a region around the call would not contain it)."""
    code = getattr(func, "__code__", None)
    return code is not None and bool(getattr(code, "co_flags", 0) & _SUSPENDING)


def _func_name(func):
    """The default region name of a function: its qualified name."""
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)


_lib = _collector()

#: True when the program runs under rocsys-top and regions are recorded.
active = _lib is not None

if active:
    import functools as _functools

    _push, _pop, _mark, _start, _stop, _begin, _end = _lib
    _regions = {}  # name -> _Region

    def _wrap(func, encoded, name):
        """func inside a region: push before the call, pop after it, also when it raises."""
        if isinstance(func, (staticmethod, classmethod)):
            return type(func)(_wrap(func.__func__, encoded, name))
        if _suspends(func):
            import warnings

            warnings.warn(
                "rocsys: %s is a generator or coroutine function: its body runs after the "
                "call returns, so it is not made a region; put `with rocsys.region(%r):` "
                "around the work inside it" % (_func_name(func), name),
                stacklevel=3,
            )
            return func

        def region_wrapper(*args, **kwargs):
            _push(encoded)
            try:
                return func(*args, **kwargs)
            finally:
                _pop()

        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            try:
                setattr(region_wrapper, attr, getattr(func, attr))
            except (AttributeError, TypeError):
                pass
        try:
            region_wrapper.__dict__.update(getattr(func, "__dict__", {}))
        except (AttributeError, TypeError):
            pass
        region_wrapper.__wrapped__ = func
        return region_wrapper

    class _Region(object):
        """A named region: a context manager (reusable, re-entrant, shared by threads: the
        open regions are kept per thread by the collector) and a decorator."""

        __slots__ = ("name", "_encoded")

        def __init__(self, name, encoded):
            self.name = name
            self._encoded = encoded

        def __enter__(self):
            _push(self._encoded)

        def __exit__(self, exc_type, exc, tb):
            _pop()  # returns None: an exception goes on

        def __call__(self, func):
            return _wrap(func, self._encoded, self.name)

        def __repr__(self):
            return "rocsys.region(%r)" % (self.name,)

    def _new_region(name):
        """The region of a name not seen before, cached when the name is hashable and the cache
        has room. A cached name gets a subclass of its own whose __enter__ is the C callable
        partial(_push, encoded) (a staticmethod: not bound to the instance), so that a `with`
        runs one Python frame, __exit__, instead of two: 60-90 ns less per region."""
        encoded = _encode(name)
        try:
            cached = _regions.get(name)  # another thread may just have made it
        except TypeError:  # unhashable
            return _Region(name, encoded)
        if cached is not None:
            return cached
        if len(_regions) >= _CACHE_MAX:
            return _Region(name, encoded)
        enter = staticmethod(_functools.partial(_push, encoded))
        cls = type("_Region", (_Region,), {"__slots__": (), "__enter__": enter})
        return _regions.setdefault(name, cls(name, encoded))

    def region(name):
        """A region named name: `with rocsys.region("load"): ...`, or a decorator,
        `@rocsys.region("load")`. The object is cached per name and may be kept and reused."""
        try:
            return _regions[name]
        except (KeyError, TypeError):
            return _new_region(name)

    def profile(func=None, name=None):
        """Make every call of a function a region: `@rocsys.profile` (named after the
        function's __qualname__), `@rocsys.profile("name")` or `@rocsys.profile(name="name")`."""
        if func is None:
            return lambda f: profile(f, name)
        if isinstance(func, (_text, bytes)):
            name = func
            return lambda f: profile(f, name)
        if name is None:
            inner = getattr(func, "__func__", func)  # staticmethod, classmethod
            name = _func_name(inner)
        return _wrap(func, _encode(name), name)

    def mark(text):
        """An instant event named text on the calling thread."""
        _mark(_encode(text))

    def begin(name):
        """A latency point's arrival (a request starts): with --causal, the experiments predict
        the time between begin() and end() by Little's law (all names count alike)."""
        _begin(_encode(name))

    def end(name):
        """A latency point's departure (a request ends)."""
        _end(_encode(name))

    def start_sampling():
        """Resume call-stack sampling of the whole process (regions are recorded either way)."""
        _start()

    def stop_sampling():
        """Pause call-stack sampling of the whole process (e.g. around set-up code)."""
        _stop()

else:
    import itertools as _itertools

    class _NoRegion(object):
        """The region of a program not run under rocsys-top: it does nothing, as a context
        manager or as a decorator (which returns the function itself)."""

        __slots__ = ()
        name = None

        def __call__(self, func):
            return func

        def __repr__(self):
            return "rocsys.region(inactive)"

    _NO_REGION = _NoRegion()
    _forever = _itertools.repeat(None)
    # A `with` runs no Python frame: __enter__() is the C next() of an endless repeat of None
    # (what __enter__ returns when active too), __exit__(type, value, traceback) the C
    # str.format of "" (it takes any arguments and returns "", false: an exception goes on).
    # Both are builtins, not functions, so they are not bound to the instance: 40-90 ns less.
    _NoRegion.__enter__ = getattr(_forever, "__next__", None) or _forever.next
    _NoRegion.__exit__ = "".format

    def region(name):
        """A region named name (inactive: a shared no-op context manager and decorator)."""
        return _NO_REGION

    def _unchanged(func):
        return func

    def profile(func=None, name=None):
        """Make every call of a function a region (inactive: the function itself)."""
        if func is None or isinstance(func, (_text, bytes)):
            return _unchanged
        return func

    def mark(text):
        """An instant event (inactive: nothing)."""

    def begin(name):
        """A latency point's arrival (inactive: nothing)."""

    def end(name):
        """A latency point's departure (inactive: nothing)."""

    def start_sampling():
        """Resume sampling (inactive: nothing)."""

    def stop_sampling():
        """Pause sampling (inactive: nothing)."""


del _lib
