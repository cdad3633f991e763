package costmodel

import (
	"slices"
	"strings"
	"testing"
)

func TestShape(t *testing.T) {
	s := BoundShape(1024, []int{15, 10, 5})
	if want := []float64{1024, 16384, 180224, 1081344}; !slices.Equal(s.Frontier, want) {
		t.Errorf("frontiers %v; want %v", s.Frontier, want)
	}
	if want := []float64{15360, 163840, 901120}; !slices.Equal(s.Picks, want) {
		t.Errorf("picks %v; want %v", s.Picks, want)
	}
	if s.Rows() != 197632 || s.Edges() != 1080320 || s.Inputs() != 1081344 {
		t.Errorf("rows %g, edges %g, inputs %g; want 197632, 1080320, 1081344", s.Rows(), s.Edges(), s.Inputs())
	}
	h := ScaledShape(1024, []int{15, 10, 5}, 0.5)
	if want := []float64{1024, 8192, 90112, 540672}; !slices.Equal(h.Frontier, want) {
		t.Errorf("half: frontiers %v; want %v", h.Frontier, want)
	}
	if want := []float64{15360, 81920, 450560}; !slices.Equal(h.Picks, want) {
		t.Errorf("half: picks %v; want %v", h.Picks, want)
	}
	for _, bad := range []Shape{{}, {Frontier: []float64{1, 2}, Picks: []float64{1, 2}}, {Frontier: []float64{4, 2}, Picks: []float64{1}}, {Frontier: []float64{1, 2}, Picks: []float64{-1}}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestSAGEFlops(t *testing.T) {
	// Layer by layer, input layer first (n dst rows, m edges, fin -> fout):
	// 180224, 901120, 128 -> 256: GEMM 8·n·fin·fout, aggregation 2·m·fin;
	// 16384, 163840, 256 -> 256 and 1024, 15360, 256 -> 172: GEMM
	// 12·n·fin·fout, aggregation 4·m·fin.
	gemm, agg := SAGEFlops(BoundShape(1024, []int{15, 10, 5}), 128, 256, 172)
	wantG := 8*180224*128*256.0 + 12*16384*256*256.0 + 12*1024*256*172.0
	wantA := 2*901120*128.0 + 4*163840*256.0 + 4*15360*256.0
	if !close(gemm, wantG) || !close(agg, wantA) || !close(gemm, 60670607360) {
		t.Errorf("SAGEFlops = %g, %g; want %g, %g", gemm, agg, wantG, wantA)
	}
}

// smallEpoch: p = 4 ranks, 2 per node sharing 2 GB/s (1 GB/s each), 10 µs
// per all-to-all round, 1 µs per ring message; 8192 training vertices in
// minibatches of 1024 (2 per rank), one layer of fanout 2 (1024 seeds,
// 3072 inputs, 2048 edges), 8 features, 100 parameters, bulks of 1.
func smallEpoch() (Workload, Cluster, Rates) {
	w := Workload{Train: 8192, Batch: 1024, Fanouts: []int{2}, Features: 8, Params: 100, Shape: BoundShape(1024, []int{2}), Bulk: 1, DistributedGraph: true}
	return w, Cluster{P: 4, RanksPerNode: 2, Injection: 2e9, Alpha: 1e-5, MsgLatency: 1e-6}, Rates{SampledEdgesPerSecond: 2.048e6, StepSeconds: 0.01}
}

func TestPredictEpochByHand(t *testing.T) {
	// Gradients, every c: B = 4·103 bytes, a ring sends 2·3/4·B = 618 bytes
	// in 6 messages per step.
	const grad = 2 * (618/1e9 + 6e-6)
	for _, tc := range []struct {
		c                        int
		sampleBytes, sampleComm  float64
		featureBytes, featureSec float64
	}{
		// (1 - c/p)·4·(3·2048 rows + 4096 picks) + 48·(q-1) per round, 2
		// rounds per bulk, 2 bulks; features (1 - c/p)·6144·36 + 16·(q-1)·2.
		{1, 30720 + 576, 4e-5 + 31296/1e9, 165888 + 96, 6e-5 + 165984/1e9},
		{2, 20480 + 192, 4e-5 + 20672/1e9, 110592 + 32, 6e-5 + 110624/1e9},
		{4, 0, 0, 0, 0},
	} {
		w, cl, r := smallEpoch()
		e, err := PredictEpoch(w, cl, tc.c, r)
		if err != nil {
			t.Fatal(err)
		}
		load := 2e-3 + tc.sampleComm + tc.featureSec
		train := 0.02 + grad
		for _, f := range []struct {
			name      string
			got, want float64
		}{
			{"steps", e.Steps, 2}, {"sample compute", e.SampleCompute, 2e-3},
			{"sample bytes", e.SampleBytes, tc.sampleBytes}, {"sample comm", e.SampleComm, tc.sampleComm},
			{"feature bytes", e.FeatureBytes, tc.featureBytes}, {"features", e.Features, tc.featureSec},
			{"compute", e.Compute, 0.02}, {"gradient bytes", e.GradientBytes, 1236}, {"gradients", e.Gradients, grad},
			{"serial", e.Serial, load + train}, {"overlapped", e.Overlapped, train + load/2},
		} {
			if !close(f.got, f.want) {
				t.Errorf("c = %d: %s = %.9g; want %.9g", tc.c, f.name, f.got, f.want)
			}
		}
	}
}

// TestPredictEpochLimits: at p = 128 and c = 1..8 the communication falls
// with c as 1 - c/p, the compute and the gradients do not move, the
// pipeline never costs more than the serial sum nor less than either
// stage, and a replicated graph sends nothing to sample.
func TestPredictEpochLimits(t *testing.T) {
	fan := []int{15, 10, 5}
	w := Workload{Train: 1207179, Batch: 1024, Fanouts: fan, Features: 128, Params: 285356, Shape: BoundShape(1024, fan), Bulk: 4, DistributedGraph: true}
	cl := Cluster{P: 128, RanksPerNode: 4, Injection: 25e9, Alpha: 20e-6, MsgLatency: 2e-6}
	r := Rates{SampledEdgesPerSecond: 5e6, StepSeconds: 0.3}
	var prev Epoch
	for i, c := range []int{1, 2, 4, 8, 128} {
		e, err := PredictEpoch(w, cl, c, r)
		if err != nil {
			t.Fatal(err)
		}
		if !close(e.Steps, 1179.0/128) {
			t.Errorf("c = %d: %g steps per rank; want 1179/128", c, e.Steps)
		}
		load, train := e.SampleCompute+e.SampleComm+e.Features, e.Compute+e.Gradients
		if e.Overlapped > e.Serial || e.Overlapped < load || e.Overlapped < train {
			t.Errorf("c = %d: overlapped %g outside [max(%g, %g), %g]", c, e.Overlapped, load, train, e.Serial)
		}
		if i > 0 {
			if !(e.FeatureBytes < prev.FeatureBytes && e.SampleBytes < prev.SampleBytes && e.Features < prev.Features) {
				t.Errorf("c = %d: communication %g, %g bytes not below c = %d's %g, %g", c, e.FeatureBytes, e.SampleBytes, prev.C, prev.FeatureBytes, prev.SampleBytes)
			}
			if e.Compute != prev.Compute || e.Gradients != prev.Gradients || e.SampleCompute != prev.SampleCompute {
				t.Errorf("c = %d: compute, gradients or sampling moved with c", c)
			}
		}
		// The row traffic is (1 - c/p) of c = 0's (every row remote).
		rows := (1 - float64(c)/128) * e.Steps * w.Shape.Inputs() * (4*128 + 4)
		if !close(e.FeatureBytes, rows+16*float64(128/c-1)*e.Steps) {
			t.Errorf("c = %d: feature bytes %g; want %g", c, e.FeatureBytes, rows+16*float64(128/c-1)*e.Steps)
		}
		if c == 128 && (e.FeatureBytes != 0 || e.SampleBytes != 0 || e.Features != 0 || e.SampleComm != 0) {
			t.Errorf("c = p: communication %+v; want none", e)
		}
		prev = e
	}
	w.DistributedGraph = false
	if e, _ := PredictEpoch(w, cl, 1, r); e.SampleBytes != 0 || e.SampleComm != 0 {
		t.Errorf("replicated graph: sampling sends %g bytes", e.SampleBytes)
	}
}

func TestPredictEpochErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Workload, *Cluster, *Rates, *int)
		want string
	}{
		{"c not dividing p", func(_ *Workload, _ *Cluster, _ *Rates, c *int) { *c = 3 }, "does not divide"},
		{"no bandwidth", func(_ *Workload, cl *Cluster, _ *Rates, _ *int) { cl.Injection = 0 }, "Injection"},
		{"no batch", func(w *Workload, _ *Cluster, _ *Rates, _ *int) { w.Batch = 0 }, "Batch"},
		{"fanouts", func(w *Workload, _ *Cluster, _ *Rates, _ *int) { w.Fanouts = []int{1, 2} }, "fanouts"},
		{"no SEPS", func(_ *Workload, _ *Cluster, r *Rates, _ *int) { r.SampledEdgesPerSecond = 0 }, "SampledEdgesPerSecond"},
		{"shape", func(w *Workload, _ *Cluster, _ *Rates, _ *int) { w.Shape.Frontier[1] = 0 }, "Frontier[1]"},
	} {
		w, cl, r := smallEpoch()
		c := 1
		tc.edit(&w, &cl, &r, &c)
		if _, err := PredictEpoch(w, cl, c, r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want one naming %q", tc.name, err, tc.want)
		}
	}
}
