package gpu

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
)

// TestDeviceMinibatchTrainsLikeHost samples a bulk on the emulator and
// trains on each minibatch twice with the same backend: once from the
// device (the blocks' operators formed on the device, FormBlock, and the
// input rows gathered from a device feature matrix, GatherRows), once
// from the bulk downloaded to the host (normalised by the model on the
// host, features uploaded). The logits and gradients must be equal bit
// for bit: the device's normalisation and gather are the host's. SAGE
// and GCN (graph degrees), with dropout.
func TestDeviceMinibatchTrainsLikeHost(t *testing.T) {
	dev := NewEmulator(EmulatorOptions{Order: 77, Exact: true})
	defer dev.Close()
	a := samplingtest.RandomGraph(800, 12, true, 3)
	const f, classes = 10, 4
	x := make([]float32, a.Rows*f)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	labels := make([]int32, a.Rows)
	for v := range labels {
		labels[v] = int32(v % classes)
		if v%7 == 0 {
			labels[v] = -1
		}
	}
	feats, err := NewFeatures(dev, x, f)
	if err != nil {
		t.Fatal(err)
	}
	defer feats.Close()
	for _, c := range []struct {
		arch     gnn.Arch
		weighted bool
	}{{gnn.SAGE, false}, {gnn.SAGE, true}, {gnn.GCN, false}, {gnn.GCN, true}} {
		arch := c.arch
		t.Run(fmt.Sprintf("%v-weighted=%v", arch, c.weighted), func(t *testing.T) {
			// Weighted samples carry values other than 1, which the
			// normalisations scale.
			s, err := NewNodeWise(dev, a, sampling.NodeWiseOptions{Fanouts: []int{6, 4}, Seed: 9, Degrees: true, Weighted: c.weighted})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			seeds := samplingtest.RandomSeeds(a.Rows, 3, 40, 5)
			db, err := s.SampleDevice(context.Background(), 1, 6, seeds)
			if err != nil {
				t.Fatal(err)
			}
			hb, err := s.Download(db)
			if err != nil {
				t.Fatal(err)
			}
			be, err := NewBackend(dev, BackendOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			newModel := func() *gnn.Model {
				m, err := gnn.NewModel(gnn.ModelOptions{Arch: arch, Layers: 2, Hidden: 8, InFeatures: f, Classes: classes,
					Dropout: 0.3, Seed: 11, Backend: be})
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			onDev, onHost := newModel(), newModel()
			var xb gnn.Buf
			for i := range db.Len() {
				dmb, hmb := db.Minibatch(i), hb.Minibatch(i)
				pass := gnn.Pass{Train: true, Epoch: 1, Minibatch: hmb.Index}
				y := make([]int32, len(hmb.Seeds))
				for r, v := range hmb.Seeds {
					y[r] = labels[v]
				}
				// From the device.
				in := dmb.InputNodes()
				xb = be.Alloc(int(in.Len()) * f)
				be.GatherRows(xb, feats, in)
				got := slices.Clone(onDev.ForwardInput(&sampling.Minibatch{Index: hmb.Index, Seeds: hmb.Seeds},
					gnn.Input{Buf: xb, Blocks: dmb.GNNBlocks()}, pass))
				d := make([]float32, len(got))
				gnn.CrossEntropy(d, got, classes, y)
				onDev.Backward(d)
				gotG := slices.Clone(onDev.Grads())
				// From the host.
				hx := make([]float32, len(hmb.InputNodes())*f)
				for r, v := range hmb.InputNodes() {
					copy(hx[r*f:(r+1)*f], x[int(v)*f:(int(v)+1)*f])
				}
				want := slices.Clone(onHost.ForwardInput(&hmb, gnn.Input{Dense: hx}, pass))
				gnn.CrossEntropy(d, want, classes, y)
				onHost.Backward(d)
				wantG := onHost.Grads()
				if err := be.Err(); err != nil {
					t.Fatal(err)
				}
				for e := range want {
					if math.Float32bits(got[e]) != math.Float32bits(want[e]) {
						t.Fatalf("minibatch %d: logit %d = %v from the device, %v from the host", i, e, got[e], want[e])
					}
				}
				for e := range wantG {
					if math.Float32bits(gotG[e]) != math.Float32bits(wantG[e]) {
						t.Fatalf("minibatch %d: gradient %d = %v from the device, %v from the host", i, e, gotG[e], wantG[e])
					}
				}
				be.Free(xb)
			}
		})
	}
}

// TestFeaturesPlacement: Features keep the matrix in device memory or in
// mapped host memory as asked (auto: the device's when it fits), gather
// the same rows from either, upload nothing to host memory, say why they
// are in host memory, and refuse PlaceDevice for a matrix that does not
// fit, naming its size.
func TestFeaturesPlacement(t *testing.T) {
	const n, f = 200, 16 // 12,800 bytes
	x := make([]float32, n*f)
	for i := range x {
		x[i] = float32(i%977) * 0.25
	}
	ids := []int32{5, 0, 199, 5, 42}
	for _, c := range []struct {
		place  Placement
		memory int64 // of the emulator
		want   Placement
		err    string
	}{
		{PlaceAuto, 1 << 20, PlaceDevice, ""},
		{PlaceAuto, 8 << 10, PlaceHost, ""},
		{PlaceDevice, 1 << 20, PlaceDevice, ""},
		{PlaceDevice, 8 << 10, 0, "the feature matrix (200 x 16 float32) needs"},
		{PlaceHost, 1 << 20, PlaceHost, ""},
		{Placement(7), 1 << 20, 0, "not a placement"},
	} {
		t.Run(fmt.Sprintf("%v/%d", c.place, c.memory), func(t *testing.T) {
			dev := NewEmulator(EmulatorOptions{MemoryBytes: c.memory, Order: 3})
			defer dev.Close()
			s, err := NewFeaturesWith(dev, x, f, FeaturesOptions{Placement: c.place})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("NewFeaturesWith: %v; want an error saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Placement() != c.want || (s.PlacementNote() == "") != (c.want == PlaceDevice) {
				t.Fatalf("placement %v, note %q; want %v (a note when in host memory)", s.Placement(), s.PlacementNote(), c.want)
			}
			costs := dev.Costs()
			if host := c.want == PlaceHost; host != (costs.HostAllocs == 1 && costs.Uploads == 0) || host == (costs.AllocBytes >= n*f*4) {
				t.Errorf("placement %v: %d host allocations, %d uploads, %d bytes of device memory", c.want, costs.HostAllocs, costs.Uploads, costs.AllocBytes)
			}
			got := make([]float32, len(ids)*f)
			if err := s.Gather(context.Background(), got, ids); err != nil {
				t.Fatal(err)
			}
			for i, v := range ids {
				if !slices.Equal(got[i*f:(i+1)*f], x[int(v)*f:int(v+1)*f]) {
					t.Fatalf("row %d (vertex %d): %v; want %v", i, v, got[i*f:(i+1)*f], x[int(v)*f:int(v+1)*f])
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("a second Close: %v", err)
			}
		})
	}
	for _, name := range []string{"auto", "device", "host"} {
		if p, err := ParsePlacement(name); err != nil || p.String() != name {
			t.Errorf("ParsePlacement(%q) = %v, %v", name, p, err)
		}
	}
	if _, err := ParsePlacement("gpu"); err == nil {
		t.Error("ParsePlacement(\"gpu\"): no error")
	}
}
