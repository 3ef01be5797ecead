"""The worker's file store against a real S3-compatible server (moto's, over HTTP on this machine)."""

from __future__ import annotations

import hashlib
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.file_store import (
    MANIFEST,
    FileStoreError,
    LocalFileStore,
    S3FileStore,
    s3_client_from,
    store_from,
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def s3_env() -> Iterator[dict[str, str]]:
    from moto.server import ThreadedMotoServer

    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {
        "STORAGE_BACKEND": "s3",
        "S3_ENDPOINT": f"http://127.0.0.1:{port}",
        "S3_BUCKET": "qml-worker-tests",
        "S3_REGION": "us-east-1",
        "S3_ACCESS_KEY_ID": "test-key",
        "S3_SECRET_ACCESS_KEY": "test-secret",
        "S3_FORCE_PATH_STYLE": "true",
    }
    s3_client_from(env).create_bucket(Bucket=env["S3_BUCKET"])
    yield env
    server.stop()


def _machine(env: dict[str, str], data_dir: Path) -> S3FileStore:
    """The store as a worker on a machine whose DATA_DIR is ``data_dir`` sees it."""
    store = store_from({**env, "DATA_DIR": str(data_dir)})
    assert isinstance(store, S3FileStore)
    return store


def test_a_trained_model_published_on_one_machine_is_fetched_byte_for_byte_on_another(
    s3_env: dict[str, str], tmp_path: Path
) -> None:
    trainer = _machine(s3_env, tmp_path / "a")
    folder = tmp_path / "a" / "outputs" / "41"
    (folder / "bundle").mkdir(parents=True)
    (folder / "model.json").write_text('{"framework": "torch"}')
    (folder / "bundle" / "weights.pt").write_bytes(bytes(range(256)) * 40)
    trainer.publish_folder(folder)
    assert (folder / MANIFEST).is_file()  # the trainer's own copy counts as fetched

    reader = _machine(s3_env, tmp_path / "b")
    wanted = tmp_path / "b" / "outputs" / "41" / "bundle" / "weights.pt"
    assert not wanted.exists()
    assert reader.fetch_output(wanted) == wanted
    assert wanted.read_bytes() == (folder / "bundle" / "weights.pt").read_bytes()
    assert (tmp_path / "b" / "outputs" / "41" / "model.json").read_text() == '{"framework": "torch"}'
    manifest = json.loads((tmp_path / "b" / "outputs" / "41" / MANIFEST).read_text())
    digest = hashlib.sha256(wanted.read_bytes()).hexdigest()
    assert manifest["files"]["bundle/weights.pt"]["sha256"] == digest
    # Through the cache keyed by sha256, which later jobs share.
    assert (tmp_path / "b" / "store-cache" / "sha256" / digest).read_bytes() == wanted.read_bytes()


def test_an_output_never_published_is_left_to_the_readers_own_checks(
    s3_env: dict[str, str], tmp_path: Path
) -> None:
    reader = _machine(s3_env, tmp_path)
    missing = tmp_path / "outputs" / "999" / "model.json"
    assert reader.fetch_output(missing) == missing
    assert not missing.exists()


def test_an_input_is_fetched_by_key_into_the_sha256_cache_and_checked(
    s3_env: dict[str, str], tmp_path: Path
) -> None:
    client = s3_client_from(s3_env)
    body = b"Date,Close\n2024-01-01,1\n2024-01-02,2\n"
    client.put_object(Bucket=s3_env["S3_BUCKET"], Key="datasets/7/abc.csv", Body=body)
    digest = hashlib.sha256(body).hexdigest()
    store = _machine(s3_env, tmp_path)
    local = store.input_file(
        {"path": "/elsewhere/datasets/7/abc.csv", "key": "datasets/7/abc.csv", "sha256": digest}
    )
    assert local == tmp_path / "store-cache" / "sha256" / digest
    assert local.read_bytes() == body

    wrong = "0" * 64
    with pytest.raises(FileStoreError, match=f"has sha256 {digest}, not {wrong}"):
        store.input_file({"path": "/x", "key": "datasets/7/abc.csv", "sha256": wrong})
    assert not (tmp_path / "store-cache" / "sha256" / wrong).exists()
    assert [p.name for p in (tmp_path / "store-cache" / "sha256").iterdir()] == [digest]  # no partial left

    # Bytes already cached are not fetched again, whichever key names them; other bytes must be in the store.
    assert store.input_file({"path": "/x", "key": "url-cache/same.csv", "sha256": digest}) == local
    with pytest.raises(FileStoreError, match=r"the file store has no file datasets/7/gone\.csv"):
        store.input_file({"path": "/x", "key": "datasets/7/gone.csv", "sha256": "2" * 64})
    # A shipped sample has no key: its path is read as given.
    assert store.input_file({"path": "/srv/samples/a.csv", "sha256": digest}) == Path("/srv/samples/a.csv")


def test_a_large_output_goes_up_as_a_multipart_upload(s3_env: dict[str, str], tmp_path: Path) -> None:
    store = _machine(s3_env, tmp_path)
    folder = tmp_path / "outputs" / "77"
    folder.mkdir(parents=True)
    (folder / "big.bin").write_bytes(b"\x01" * (9 * 1024 * 1024))  # over boto3's 8 MiB threshold
    store.publish_folder(folder)
    head = s3_client_from(s3_env).head_object(Bucket=s3_env["S3_BUCKET"], Key="outputs/77/big.bin")
    assert head["ContentLength"] == 9 * 1024 * 1024
    assert head["ETag"].strip('"').endswith("-2")  # two parts


def test_keys_never_leave_data_dir(s3_env: dict[str, str], tmp_path: Path) -> None:
    store = _machine(s3_env, tmp_path)
    with pytest.raises(FileStoreError, match="not a file store key"):
        store.input_file({"path": "/x", "key": "datasets/../../etc/passwd", "sha256": "0" * 64})
    with pytest.raises(FileStoreError, match="is not inside DATA_DIR"):
        store.publish_folder(tmp_path.parent)


def test_settings_name_the_store(tmp_path: Path) -> None:
    assert isinstance(store_from({}), LocalFileStore)
    assert LocalFileStore().input_file({"path": "/a/b.csv", "key": "datasets/1/b.csv"}) == Path("/a/b.csv")
    with pytest.raises(FileStoreError, match="needs S3_BUCKET and DATA_DIR"):
        store_from({"STORAGE_BACKEND": "s3"})
    with pytest.raises(FileStoreError, match="must be local or s3"):
        store_from({"STORAGE_BACKEND": "ftp"})


def test_a_job_input_the_store_cannot_give_is_refused_on_its_field(
    s3_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qmlstudio_worker import file_store

    monkeypatch.setattr(file_store, "file_store", lambda: _machine(s3_env, tmp_path))
    extension = {"dataset": {"path": "/x.csv", "key": "datasets/1/none.csv", "sha256": "1" * 64}, "seed": 1}
    with pytest.raises(JobValidationError) as refused:
        file_store.with_local_dataset(extension)
    assert refused.value.field == "/extension/dataset"
    assert "could not be read from the file store" in refused.value.message
    assert file_store.with_local_dataset({"seed": 1}) == {"seed": 1}
