"""Writing generated files: atomically (temporary file + rename), so no reader sees half a file;
naming them by their content (`content_digest`)."""
import contextlib
import functools
import hashlib
import os
import shutil
import tempfile
import warnings


@contextlib.contextmanager
def one_process_at_a_time(path: str):
    """Inside the block this process holds an advisory lock on the existing file at `path`:
    another process entering the block for the same file waits until this one leaves it (or
    ends, however it ends: the system drops the lock). Where there are no such locks (no
    fcntl, a file system without them, an unreadable file), nobody waits."""
    try:
        import fcntl
        handle = open(path, "rb")
    except (ImportError, OSError):
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:
            pass
        yield


def write_atomic(path: str, content) -> None:
    """`content` (text, or bytes) written to a temporary file beside `path`, then renamed."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        binary = isinstance(content, bytes)
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
            f.write(content)
        os.chmod(tmp, 0o666 & ~_UMASK)  # readable like any module, not a private temp file
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def content_digest(text: str, consts: dict, *salts: str) -> str:
    """A hex digest of generated text, what it depends on besides (`salts`: versions, runtime
    fingerprints) and its constants (names, dtypes, shapes and bytes)."""
    import numpy as np
    h = hashlib.sha256(text.encode())
    for salt in salts:
        h.update(salt.encode())
    for name in sorted(consts):
        value = np.ascontiguousarray(consts[name])
        h.update(f"{name}:{value.dtype.str}:{value.shape}".encode())
        h.update(value.tobytes())
    return h.hexdigest()


def write_if_changed(path: str, text: str) -> None:
    """Write atomically unless the file already holds exactly `text` (a corrupt or stale
    generated file is rewritten, an intact one is left alone for the caches that key on it)."""
    if os.path.isdir(path):  # a folder where the cache keeps a file: not ours to keep
        discard(path)
        warnings.warn(f"astjax: replaced the folder {path} in its cache by the generated file "
                      "that belongs there", stacklevel=3)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except (OSError, UnicodeDecodeError):
        pass
    write_atomic(path, text)


def discard(path: str) -> None:
    """Remove a file or a folder that is in the way, if it can be removed."""
    try:
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    except OSError:
        pass


def _read_umask() -> int:
    """The process's umask (read once: reading it means setting it, which no other thread
    should see happen at every write)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def cache_root() -> str:
    """Where generated modules live: $ASTJAX_CACHE_DIR, else ~/.cache/astjax. A root that
    cannot hold files (a file of that name, a read-only folder or home) is replaced, with one
    warning, by a private temporary folder for this process: compiling still works, only
    reuse across processes is lost."""
    root = os.environ.get("ASTJAX_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "astjax")
    usable = _USABLE.get(root)
    if usable is None:
        usable = _USABLE[root] = root if _writable(root) else _fallback(root)
    return usable


_USABLE: dict = {}  # configured root -> the folder used


def _writable(root: str) -> bool:
    try:
        os.makedirs(root, exist_ok=True)
    except OSError:
        return False
    return os.path.isdir(root) and os.access(root, os.W_OK | os.X_OK)


def _fallback(root: str) -> str:
    folder = tempfile.mkdtemp(prefix="astjax-cache-")
    warnings.warn(f"astjax: the cache folder {root} cannot be written; generated code goes to "
                  f"{folder} for this process (set ASTJAX_CACHE_DIR to a writable folder to "
                  "keep it across runs)", stacklevel=3)
    return folder


@functools.lru_cache(maxsize=None)
def astjax_source_digest() -> str:
    """astjax's own source: another version writes other core form (the front end's disk
    cache) and other kernels (the auto backend's records name a kernel's module). Each
    file counts by its size and modification time, as Python's own bytecode cache does:
    reading and hashing its ~300 files took 10 ms of every process's first call, and an
    edit that keeps both is not made by editors or installers (a touched file only costs
    the cache its entries)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # (astjax/)
    h = hashlib.sha256()
    for folder, subfolders, files in sorted(os.walk(package)):
        subfolders.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                stat = os.stat(path)
                h.update(f"{path[len(package):]}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return h.hexdigest()
