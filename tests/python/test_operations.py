"""Each ckpt operation returns what `ckpt <command> --json` prints for the
same call: the same fields and values (both come from one engine call;
the Python side only converts). Figures are compared after the JSON's
encoding (NaN as null, infinities as "inf"), and fields naming files
written or timings are left out where the two runs differ by nature."""

import json
import math
import shutil

import pytest

import ckpt
from conftest import run_cli


def as_json(value):
    """A result as the CLI's JSON encodes it."""
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    return value


def cli_json(*args, expect_rc=(0,)):
    p = run_cli(*args, "--json", check=False)
    assert p.returncode in expect_rc, p.stderr
    return json.loads(p.stdout)


def without(d, *keys):
    return {k: v for k, v in d.items() if k not in keys}


def test_verify(demo_run):
    ours = ckpt.verify(demo_run)
    assert ours.ok and ours.problems == []
    assert as_json(ours) == cli_json("verify", demo_run)


def test_list(demo_run):
    ours = ckpt.list_checkpoints(demo_run)
    theirs = cli_json("list", demo_run)
    assert len(ours.checkpoints) == 5
    # The CLI leaves out zero counts and absent errors; Python keeps them as 0 / None.
    optional = {"missing_shards": 0, "stale_data_files": 0, "error": None, "metadata_error": None}
    for o, t in zip(ours.checkpoints, theirs["checkpoints"]):
        for k, empty in optional.items():
            if k not in t:
                assert o[k] == empty
                del o[k]
        assert as_json(o) == t
    assert ours.state_file_error is None and "state_file_error" not in theirs


def test_diff(demo_run):
    a, b = demo_run / "ckpt-4", demo_run / "ckpt-5"
    ours = ckpt.diff(a, b, weights_only=True)
    assert not ours.equal and ours.counts.modified == 2
    assert as_json(ours) == cli_json("diff", a, b, "--weights-only", "--no-cache", expect_rc=(1,))
    ours = ckpt.diff(a, b, all=True, exact=True, count=3)
    assert as_json(ours) == cli_json("diff", a, b, "--all", "--exact", "--count", "3", "--no-cache", expect_rc=(1,))
    assert ckpt.diff(a, a).equal


def test_history(demo_run):
    ours = ckpt.history(demo_run, keys=["*kernel*"], weights_only=True)
    assert len(ours.checkpoints) == 5 and ours.variables
    assert as_json(ours) == cli_json("history", demo_run, "--keys", "*kernel*", "--weights-only")


def test_retention_plan_and_apply(demo_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    policy = {"keep_latest": 2}
    ours = ckpt.retention_plan(run, policy, owner="exp1", at=2000000000)
    theirs = cli_json("retention", "plan", run, "--owner", "exp1", "--keep-latest", "2", "--at", "2000000000")
    assert as_json(without(ours, "at")) == without(theirs, "at", "hint")
    assert ours.totals.deleted == 3
    applied = ckpt.retention_apply(run, policy, owner="exp1", at=2000000000)
    assert len(applied.applied.deleted) == 3
    assert [c.prefix for c in ckpt.list_checkpoints(run).checkpoints] == [str(run / "ckpt-4"), str(run / "ckpt-5")]
    with pytest.raises(ckpt.InvalidArgumentError, match="keep_latst"):
        ckpt.retention_plan(run, {"keep_latst": 2})


def test_export_and_import(demo_run, tmp_path):
    out = tmp_path / "ours.safetensors"
    ours = ckpt.export(demo_run, out, weights_only=True)
    theirs = cli_json("export", demo_run, tmp_path / "theirs.safetensors", "--weights-only")
    drop = ("output", "seconds")
    assert as_json(without(ours, *drop)) == without(theirs, *drop)
    with pytest.raises(ckpt.AlreadyExistsError):
        ckpt.export(demo_run, out)
    spec = tmp_path / "weights.json"
    shipped = tmp_path / "shipped"
    ckpt.edit(demo_run, shipped / "ckpt-1", strip_optimizer=True)
    spec.write_text(run_cli("spec", shipped / "ckpt-1").stdout)
    ours = ckpt.import_arrays(out, tmp_path / "imported" / "ckpt-1", spec=spec)
    theirs = cli_json("import", out, tmp_path / "imported-cli" / "ckpt-1", "--spec", spec)
    assert as_json(without(ours, "prefix", "seconds")) == without(theirs, "prefix", "seconds")


def test_surgery_and_reshard(demo_run, tmp_path):
    drop = ("prefix", "seconds")
    ours = ckpt.reshard(demo_run, tmp_path / "a" / "ckpt", shards=3)
    theirs = cli_json("reshard", demo_run, tmp_path / "b" / "ckpt", "--shards", "3")
    assert as_json(without(ours, *drop)) == without(theirs, *drop)
    ours = ckpt.average([demo_run], tmp_path / "avg-a", last=3)
    theirs = cli_json("merge", "--average", "--last", "3", tmp_path / "avg-b", demo_run)
    assert as_json(without(ours, *drop)) == without(theirs, *drop)
    ours = ckpt.edit(demo_run, tmp_path / "e-a", rename={"model/layer_with_weights-0": "model/encoder"})
    theirs = cli_json("edit", demo_run, tmp_path / "e-b", "--rename", "model/layer_with_weights-0=model/encoder")
    assert as_json(without(ours, *drop)) == without(theirs, *drop)
    plan = ckpt.edit(demo_run, tmp_path / "e-c", strip_optimizer=True, dry_run=True)
    assert plan.dry_run and plan.deleted > 0
    assert not (tmp_path / "e-c.index").exists()
    with pytest.raises(ckpt.InvalidArgumentError):  # a destination inside the source
        ckpt.reshard(demo_run, demo_run / "inside", shards=2)


def test_restore(demo_run, tmp_path):
    spec = tmp_path / "model.json"
    spec.write_text(run_cli("spec", demo_run).stdout)
    ours = ckpt.restore(demo_run, spec, assertion="consumed")
    theirs = cli_json("restore", demo_run, "--into", spec, "--assert", "consumed", "--no-record")
    assert as_json(ours) == theirs
    assert ours.ok
    written = ckpt.restore(demo_run, spec, out=tmp_path / "restored" / "ckpt-1")
    assert written.out.written and written.out.verify.ok and not written.out.replaced


def index_bytes(prefix):
    with open(f"{prefix}.index", "rb") as f:
        return f.read()


def test_writers_follow_the_destination_rule(demo_run, tmp_path):
    """Issue #29 finding 1 through Python: an existing checkpoint is replaced
    only with overwrite=True, and a source of the operation never is."""
    spec = tmp_path / "model.json"
    spec.write_text(run_cli("spec", demo_run).stdout)
    other = tmp_path / "other" / "ckpt-1"
    ckpt.edit(demo_run, other, strip_optimizer=True)
    before = index_bytes(other)

    with pytest.raises(ckpt.AlreadyExistsError):
        ckpt.restore(demo_run, spec, out=other)
    with pytest.raises(ckpt.AlreadyExistsError):
        ckpt.reshard(demo_run, other, shards=2)
    assert index_bytes(other) == before

    # The restore's own source, in its .index spelling, even with overwrite.
    source = ckpt.restore(demo_run, spec).source
    source_index = index_bytes(source)
    with pytest.raises(ckpt.InvalidArgumentError):
        ckpt.restore(demo_run, spec, out=f"{source}.index", overwrite=True)
    with pytest.raises(ckpt.InvalidArgumentError):
        ckpt.reshard(source, source, shards=2, overwrite=True)
    assert index_bytes(source) == source_index

    replaced = ckpt.restore(demo_run, spec, out=other, overwrite=True)
    assert replaced.out.written and replaced.out.replaced and replaced.out.verify.ok
    assert index_bytes(other) != before
    resharded = ckpt.reshard(demo_run, other, shards=2, overwrite=True)
    assert resharded.replaced and resharded.shards == 2
    assert ckpt.verify(other).ok


def drop_times(value):
    """Timings and scan times differ between two runs by nature; paths of
    the catalog files differ by construction."""
    if isinstance(value, dict):
        return {k: drop_times(v) for k, v in value.items()
                if k not in ("seconds", "scanned_at", "added_at", "last_scan_at", "verified_at", "catalog")}
    if isinstance(value, list):
        return [drop_times(v) for v in value]
    return value


def test_catalog(demo_run, tmp_path):
    ours_db, cli_db = tmp_path / "ours.db", tmp_path / "cli.db"
    ours = ckpt.catalog_add(demo_run.parent, catalog=ours_db, verify=True)
    theirs = cli_json("catalog", "add", demo_run.parent, "--catalog", cli_db, "--verify")
    assert ours.scan.checkpoints >= 5 and ours.scan.verified >= 5
    assert drop_times(as_json(ours)) == drop_times(theirs)
    assert drop_times(as_json(ckpt.catalog_scan(catalog=ours_db))) == drop_times(
        cli_json("catalog", "scan", "--catalog", cli_db))
    listed = ckpt.catalog_list(catalog=ours_db)
    assert {c.health for c in listed.checkpoints} == {"healthy"}
    assert drop_times(as_json(listed)) == drop_times(cli_json("catalog", "list", "--catalog", cli_db))
    found = ckpt.catalog_search("layer_with_weights-1/kernel", catalog=ours_db)
    assert found.total_checkpoints >= 5
    assert drop_times(as_json(found)) == drop_times(
        cli_json("catalog", "search", "layer_with_weights-1/kernel", "--catalog", cli_db))
    # Past the limit the totals are what the CLI says, bounded or counted in full.
    for exact, flags in ((False, []), (True, ["--exact-totals"])):
        shown = ckpt.catalog_search("kernel", catalog=ours_db, limit=1, exact_totals=exact)
        assert shown.truncated and len(shown.hits) == 1
        assert drop_times(as_json(shown)) == drop_times(
            cli_json("catalog", "search", "kernel", "--limit", "1", *flags, "--catalog", cli_db))
    assert ckpt.catalog_search("kernel", catalog=ours_db, limit=1, exact_totals=True).totals_exact
    with pytest.raises(ckpt.NotFoundError):
        ckpt.catalog_list(catalog=tmp_path / "no" / "such" / "dir" / "catalog.db")
