"""The file store: where a job's inputs come from and its outputs go (the worker's side of server/storage).

A file is named by its key, its path under DATA_DIR (``datasets/7/<name>.csv``, ``url-cache/<sha256>.csv``,
``outputs/42/model.json``). The server passes the settings on the worker's environment (never in a job
envelope): ``STORAGE_BACKEND``, ``DATA_DIR`` and, for ``s3``, ``S3_BUCKET``, ``S3_ENDPOINT``, ``S3_REGION``,
``S3_ACCESS_KEY_ID``, ``S3_SECRET_ACCESS_KEY``, ``S3_FORCE_PATH_STYLE``.

- ``local`` (the default, one machine): paths are read as the server gave them; nothing is published.
- ``s3`` (an S3-compatible bucket through boto3; workers on other machines): an input with a key is fetched
  into ``DATA_DIR/store-cache/sha256/<digest>``, checked against its sha256 and shared by every later job
  that needs the same bytes; a job's output folder is uploaded when the job ends (its files, then a
  manifest of their sha256, so a reader never sees half a model); a model folder trained on another machine
  is fetched before it is loaded, file by file through the same cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, Protocol

#: Written last into a published output folder: {"files": {relative name: {"sha256", "size"}}}.
MANIFEST = ".file-store-manifest.json"
_CHUNK = 1024 * 1024


class FileStoreError(OSError):
    """A file could not be read from or written to the store (missing, damaged, or the store failed)."""


class FileStore(Protocol):
    def input_file(self, dataset: Mapping[str, Any]) -> Path:
        """A local path of a job's input ``{path, key?, sha256?}`` (a resolved dataset)."""
        ...

    def publish_folder(self, folder: Path) -> None:
        """Make the files of a finished job's output folder readable from every machine."""
        ...

    def fetch_output(self, path: Path) -> Path:
        """``path`` inside an output folder (``DATA_DIR/outputs/<id>/...``), its folder fetched here first."""
        ...


class LocalFileStore:
    """DATA_DIR on this machine: the server and its workers share the disk."""

    def input_file(self, dataset: Mapping[str, Any]) -> Path:
        return Path(str(dataset["path"]))

    def publish_folder(self, folder: Path) -> None:
        return None

    def fetch_output(self, path: Path) -> Path:
        return path


def check_key(key: str) -> str:
    """A key of plain segments joined by '/' (never absolute, never '..'), as the server's checkKey."""
    segments = key.split("/")
    if not key or len(key) > 1024 or any(s in ("", ".", "..") or "\\" in s for s in segments):
        raise FileStoreError(f"not a file store key: {key!r}")
    return key


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class S3FileStore:
    """An S3-compatible bucket; DATA_DIR is this machine's copy of what it wrote or fetched."""

    def __init__(self, data_dir: Path, bucket: str, client: Any) -> None:
        self.data_dir = data_dir.resolve()
        self.bucket = bucket
        self.client = client
        self.cache_dir = self.data_dir / "store-cache" / "sha256"

    def key_of(self, path: Path) -> str:
        """The key of a path under DATA_DIR."""
        try:
            relative = path.resolve().relative_to(self.data_dir)
        except ValueError:
            raise FileStoreError(f"{path} is not inside DATA_DIR ({self.data_dir})") from None
        return check_key(relative.as_posix())

    def input_file(self, dataset: Mapping[str, Any]) -> Path:
        key = dataset.get("key")
        if not isinstance(key, str) or not key:
            return Path(str(dataset["path"]))  # a shipped sample: every machine has it with the code
        sha256 = dataset.get("sha256")
        if not isinstance(sha256, str) or len(sha256) != 64:
            raise FileStoreError(f"the input {key} carries no sha256 to fetch and check it by")
        return self._cached(check_key(key), sha256)

    def publish_folder(self, folder: Path) -> None:
        if not folder.is_dir():
            return
        prefix = self.key_of(folder)
        files: dict[str, dict[str, Any]] = {}
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST):
            name = path.relative_to(folder).as_posix()
            files[name] = {"sha256": file_sha256(path), "size": path.stat().st_size}
            self._upload(path, f"{prefix}/{check_key(name)}")
        manifest = json.dumps({"files": files}, sort_keys=True).encode("utf-8")
        self._put_bytes(f"{prefix}/{MANIFEST}", manifest)
        (folder / MANIFEST).write_bytes(manifest)

    def fetch_output(self, path: Path) -> Path:
        parts = self.key_of(path).split("/")
        if len(parts) >= 2 and parts[0] == "outputs":
            self._fetch_folder(self.data_dir / "outputs" / parts[1])
        return path

    def _fetch_folder(self, folder: Path) -> None:
        """The published output folder assembled here from the cache (nothing when never published)."""
        if (folder / MANIFEST).is_file():
            return  # written or fetched here before: complete
        prefix = self.key_of(folder)
        try:
            raw = self._read_bytes(f"{prefix}/{MANIFEST}")
        except FileNotFoundError:
            return  # nothing published under it: the reader's own checks say what is missing
        manifest = json.loads(raw)
        for name, entry in manifest["files"].items():
            blob = self._cached(f"{prefix}/{check_key(name)}", str(entry["sha256"]))
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f".{target.name}.{os.getpid()}.part")
            try:
                os.link(blob, partial)
            except OSError:  # another file system, or no hard links: a copy
                shutil.copyfile(blob, partial)
            os.replace(partial, target)
        (folder / MANIFEST).write_bytes(raw)

    def _cached(self, key: str, sha256: str) -> Path:
        """The object's bytes in the cache by their sha256, fetched and checked the first time."""
        target = self.cache_dir / sha256
        if target.is_file():
            return target
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        handle, partial_name = tempfile.mkstemp(dir=self.cache_dir, prefix=f".{sha256}.", suffix=".part")
        os.close(handle)
        partial = Path(partial_name)
        try:
            self._download(key, partial)
            found = file_sha256(partial)
            if found != sha256:
                raise FileStoreError(f"the file store's {key} has sha256 {found}, not {sha256}")
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        return target

    def _upload(self, path: Path, key: str) -> None:
        # upload_file sends a large file as a multipart upload (boto3's transfer manager).
        with _translated("upload", key):
            self.client.upload_file(str(path), self.bucket, key)

    def _download(self, key: str, path: Path) -> None:
        with _translated("download", key):
            self.client.download_file(self.bucket, key, str(path))

    def _put_bytes(self, key: str, body: bytes) -> None:
        with _translated("upload", key):
            self.client.put_object(Bucket=self.bucket, Key=key, Body=body)

    def _read_bytes(self, key: str) -> bytes:
        """The object's bytes; FileNotFoundError when there is none."""
        from botocore.exceptions import ClientError

        try:
            with _translated("read", key):
                reply = self.client.get_object(Bucket=self.bucket, Key=key)
                body: bytes = reply["Body"].read()
        except FileStoreError as exc:
            if isinstance(exc.__cause__, ClientError) and _not_found(exc.__cause__):
                raise FileNotFoundError(key) from None
            raise
        return body


@contextmanager
def _translated(action: str, key: str) -> Iterator[None]:
    """boto3's errors as FileStoreError naming the action and the key (never the credentials)."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except ClientError as exc:
        if _not_found(exc):
            raise FileStoreError(f"the file store has no file {key}") from exc
        raise FileStoreError(f"the file store could not {action} {key}: {exc}") from exc
    except BotoCoreError as exc:
        raise FileStoreError(f"the file store could not {action} {key}: {exc}") from exc


def _not_found(exc: Any) -> bool:
    error = exc.response.get("Error", {}) if hasattr(exc, "response") else {}
    return str(error.get("Code")) in ("404", "NoSuchKey", "NotFound")


def s3_client_from(env: Mapping[str, str]) -> Any:
    """A boto3 S3 client from the S3_* settings (path-style addressing when S3_FORCE_PATH_STYLE is true)."""
    import boto3
    from botocore.config import Config

    endpoint = env.get("S3_ENDPOINT") or None
    path_style = env.get("S3_FORCE_PATH_STYLE", "true" if endpoint else "false") == "true"
    options: dict[str, Any] = {}
    if env.get("S3_ACCESS_KEY_ID") and env.get("S3_SECRET_ACCESS_KEY"):
        options["aws_access_key_id"] = env["S3_ACCESS_KEY_ID"]
        options["aws_secret_access_key"] = env["S3_SECRET_ACCESS_KEY"]
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name=env.get("S3_REGION") or "us-east-1",
        config=Config(
            s3={"addressing_style": "path" if path_style else "virtual"},
            # Checksums only where S3 requires them, as the server's client: several S3-compatible stores
            # refuse the newer default; the bytes are checked by sha256 on fetch instead.
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
            retries={"max_attempts": 3, "mode": "standard"},
        ),
        **options,
    )


def store_from(env: Mapping[str, str]) -> FileStore:
    """The store the settings name (local unless STORAGE_BACKEND=s3)."""
    backend = env.get("STORAGE_BACKEND") or "local"
    if backend == "local":
        return LocalFileStore()
    if backend != "s3":
        raise FileStoreError(f"STORAGE_BACKEND must be local or s3 (got {backend!r})")
    bucket = env.get("S3_BUCKET")
    data_dir = env.get("DATA_DIR")
    if not bucket or not data_dir:
        raise FileStoreError("STORAGE_BACKEND=s3 needs S3_BUCKET and DATA_DIR")
    return S3FileStore(Path(data_dir), bucket, s3_client_from(env))


@cache
def file_store() -> FileStore:
    """This process's store, from its environment (built once)."""
    return store_from(os.environ)


def local_input(dataset: Mapping[str, Any], field: str) -> Path:
    """A job's or inference's input as a local file; a store failure is refused naming ``field``."""
    from qmlstudio_worker.errors import JobValidationError

    try:
        return file_store().input_file(dataset)
    except OSError as exc:
        message = f"The dataset could not be read from the file store ({exc})."
        raise JobValidationError(message, field) from None


def with_local_dataset(extension: dict[str, Any]) -> dict[str, Any]:
    """The job extension with ``dataset.path`` on this machine (fetched by key from a shared store)."""
    dataset = extension.get("dataset")
    if not isinstance(dataset, Mapping) or not dataset.get("key"):
        return extension
    local = local_input(dataset, "/extension/dataset")
    return {**extension, "dataset": {**dataset, "path": str(local)}}


def local_output(path: Path, field: str) -> Path:
    """``path`` in an output folder (a trained model), the folder here; a store failure names ``field``."""
    from qmlstudio_worker.errors import JobValidationError

    try:
        return file_store().fetch_output(path)
    except OSError as exc:
        message = f"The trained model could not be read from the file store ({exc})."
        raise JobValidationError(message, field) from None
