from tests.reports.test_csv import *  # noqa
def test_probe(client, alice, catalog):
    from tests.reports.conftest import sweep_spec

    run = SweepRun.objects.create(
        owner=alice,
        name="Million",
        spec=sweep_spec(),
        status=SweepStatus.DONE,
        engine_version="test",
        total_configs=MILLION,
        evaluated_configs=MILLION,
        chunks_total=MILLION // CHUNK_ROWS,
    )
    rng = np.random.default_rng(6)
    for index in range(MILLION // CHUNK_ROWS):
        SweepChunk.objects.create(
            run=run,
            index=index,
            pieces=[],
            size=CHUNK_ROWS,
            status=ChunkStatus.DONE,
            rows=_synthetic_chunk(index, rng),
        )
    client.force_login(alice)
    response = client.get(reverse("reports:sweep_csv", args=[run.pk]))
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM) to the current RSS
    _, before_kb = _rss_kb()
    lines, total_bytes, last_nodes = 0, 0, b""
    for piece in response.streaming_content:
        total_bytes += len(piece)
        lines += piece.count(b"\n")
        last_nodes = piece.rsplit(b"\n", 2)[-2].split(b",")[1]
    peak_kb, _ = _rss_kb()
    assert lines == MILLION + 1
    assert last_nodes == str(MILLION // CHUNK_ROWS).encode()
    assert total_bytes > 1.5 * STREAM_RSS_GROWTH_MAX_KB * 1024
    assert peak_kb - before_kb < STREAM_RSS_GROWTH_MAX_KB, f"grew {(peak_kb - before_kb) / 1024:.0f} MiB"
    print("PROBE lines", lines, "MiB streamed", round(total_bytes/2**20), "RSS growth MiB", round((peak_kb-before_kb)/1024,1))
