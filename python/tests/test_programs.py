"""Programs from and to JSON, wire bytes and files; validation; errors with code and Fix text."""
import pytest

import vyre


def test_json_and_wire_round_trip(source_dir):
    p = vyre.load(f"{source_dir}/examples/saxpy.json")
    assert vyre.Program.from_json(p.to_json()) == p
    assert vyre.Program.from_wire(p.to_wire()) == p
    assert vyre.Program.from_json(p.to_json(pretty=False)).fingerprint == p.fingerprint


def test_files(tmp_path, source_dir):
    p = vyre.load(f"{source_dir}/examples/histogram.json")
    p.save(str(tmp_path / "h.wire"))
    p.save(str(tmp_path / "h.json"))
    assert (tmp_path / "h.wire").read_bytes()[:4] == b"VYRE"
    assert vyre.load(str(tmp_path / "h.wire")) == p == vyre.load(str(tmp_path / "h.json"))


def test_program_shape(source_dir):
    p = vyre.load(f"{source_dir}/examples/xor.json")
    assert p.inputs == ["a", "b"] and p.outputs == ["out"]
    assert p.workgroup_size == (64, 1, 1)
    assert [(d.name, d.access, d.element, d.count) for d in p.buffers] == [
        ("a", "read", "u32", 1024), ("b", "read", "u32", 1024), ("out", "output", "u32", 1024)]
    assert "bin.xor.u32" in p.ops_used()
    assert len(p.fingerprint) == 64


def test_bad_json_is_a_decode_error():
    with pytest.raises(vyre.errors.DecodeError) as e:
        vyre.Program.from_json('{"vyre": 1, "buffers": 7}')
    assert e.value.code == 3 and e.value.name == "decode"
    assert e.value.fix and e.value.message.endswith(e.value.fix)


def test_bad_wire_bytes_are_a_decode_error():
    with pytest.raises(vyre.VyreError) as e:
        vyre.Program.from_wire(b"VYRE\x01\x00\x00\x00\xff\xff\xff\xff")
    assert e.value.code == 3


def test_a_missing_file_is_an_io_error(tmp_path):
    with pytest.raises(vyre.VyreError) as e:
        vyre.load(str(tmp_path / "nothing.json"))
    assert e.value.name == "io"


def test_errors_pickle():
    import pickle
    try:
        vyre.Program.from_json("{")
    except vyre.VyreError as e:
        again = pickle.loads(pickle.dumps(e))
        assert type(again) is type(e) and again.code == e.code and again.fix == e.fix
