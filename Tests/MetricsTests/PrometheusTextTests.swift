import Metrics
import Testing

@Suite struct PrometheusTextTests {
    private func render(_ write: (inout PrometheusText) -> Void) -> String {
        var text = PrometheusText()
        write(&text)
        return String(decoding: text.bytes, as: UTF8.self)
    }

    @Test func aFamilyIsItsHelpAndTypeThenItsSamplesEachLineEndingInANewline() {
        let out = render { text in
            text.family("jobs_total", .counter, help: "Jobs done.")
            text.sample("jobs_total", ["queue": "a"], 3)
            text.sample("jobs_total", 0)
        }
        #expect(out == "# HELP jobs_total Jobs done.\n# TYPE jobs_total counter\njobs_total{queue=\"a\"} 3\njobs_total 0\n")
    }

    @Test func helpAndLabelValuesAreEscapedAsTheFormatSays() {
        let out = render { text in
            text.family("x", .gauge, help: "back\\slash\nnew line \"quotes\" stay")
            text.sample("x", ["v": "a\"b\\c\nd"], 1)
        }
        #expect(out.contains("# HELP x back\\\\slash\\nnew line \"quotes\" stay\n"))
        #expect(out.contains("x{v=\"a\\\"b\\\\c\\nd\"} 1\n"))
    }

    @Test func valuesPrintAsGoPrintsThem() {
        #expect(PrometheusText.format(3) == "3")
        #expect(PrometheusText.format(0.005) == "0.005")
        #expect(PrometheusText.format(2.5) == "2.5")
        #expect(PrometheusText.format(.infinity) == "+Inf")
        #expect(PrometheusText.format(-.infinity) == "-Inf")
        #expect(PrometheusText.format(.nan) == "NaN")
    }

    @Test func aHistogramIsCumulativeEndsInPlusInfAndItsCountMatches() {
        let buckets = HistogramBuckets([0.1, 1])
        let out = render { text in
            text.family("d_seconds", .histogram, help: "D.")
            text.histogram("d_seconds", labels: [("m", "x")], buckets: buckets, counts: [2, 1, 4], sum: 12.5)
        }
        #expect(out.split(separator: "\n").dropFirst(2) == [
            "d_seconds_bucket{m=\"x\",le=\"0.1\"} 2", "d_seconds_bucket{m=\"x\",le=\"1\"} 3",
            "d_seconds_bucket{m=\"x\",le=\"+Inf\"} 7", "d_seconds_sum{m=\"x\"} 12.5", "d_seconds_count{m=\"x\"} 7",
        ])
    }
}

@Suite struct HistogramBucketsTests {
    @Test func anUpperBoundIsInclusive() {
        let buckets = HistogramBuckets.standard
        #expect(buckets.index(ofNanoseconds: 0) == 0)
        #expect(buckets.index(ofNanoseconds: 5_000_000) == 0)
        #expect(buckets.index(ofNanoseconds: 5_000_001) == 1)
        #expect(buckets.index(ofNanoseconds: 10_000_000_000) == 10)
        #expect(buckets.index(ofNanoseconds: 10_000_000_001) == 11)
        #expect(buckets.count == 12)
    }

    @Test func negativeAndHugeDurationsClamp() {
        #expect(Duration.seconds(-1).metricNanoseconds == 0)
        #expect(Duration.milliseconds(1500).metricNanoseconds == 1_500_000_000)
        #expect(Duration.seconds(Int64.max).metricNanoseconds == .max)
    }
}

@Suite struct CounterCellsTests {
    @Test func aTotalSumsEveryShardAndCellsStayApart() async {
        let cells = CounterCells(shards: 3, cellsPerShard: 5)
        await withTaskGroup(of: Void.self) { group in
            for shard in 0..<3 {
                group.addTask {
                    for _ in 0..<10_000 { cells.add(cell: 4, shard: shard) }
                    cells.add(7, cell: 0, shard: shard)
                }
            }
        }
        #expect(cells.total(cell: 4) == 30_000)
        #expect(cells.total(cell: 0) == 21)
        #expect((1...3).map { cells.total(cell: $0) } == [0, 0, 0])
    }
}

@Suite struct LabeledCounterTests {
    @Test func namedSeriesShowAtZeroAndOthersAppearWhenTheyMove() {
        let counter = LabeledCounter("events_total", help: "E.", labels: ["kind", "outcome"], initial: [["a", "ok"]])
        counter.increment("b", "failed", by: 2)
        var text = PrometheusText()
        counter.collect(into: &text)
        let out = String(decoding: text.bytes, as: UTF8.self)
        #expect(out.contains("events_total{kind=\"a\",outcome=\"ok\"} 0\n"))
        #expect(out.contains("events_total{kind=\"b\",outcome=\"failed\"} 2\n"))
        #expect(counter.value("b", "failed") == 2 && counter.value("c", "x") == 0)
    }

    @Test func aLabeledHistogramCountsEachObservationInItsBucket() {
        let histogram = LabeledHistogram("lag_seconds", help: "L.", labels: ["source"], buckets: HistogramBuckets([1]))
        histogram.observe(.milliseconds(500), "apple")
        histogram.observe(.seconds(3), "apple")
        var text = PrometheusText()
        histogram.collect(into: &text)
        let out = String(decoding: text.bytes, as: UTF8.self)
        #expect(out.contains("lag_seconds_bucket{source=\"apple\",le=\"1\"} 1\n"))
        #expect(out.contains("lag_seconds_bucket{source=\"apple\",le=\"+Inf\"} 2\n"))
        #expect(out.contains("lag_seconds_sum{source=\"apple\"} 3.5\n"))
        #expect(histogram.count("apple") == 2)
    }
}
