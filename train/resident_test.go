package train

import (
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/gpu"
)

// TestResidentFeatures: with package gpu's backend (here on the emulator)
// dense features move to the device's memory and the trainer's store
// becomes the device copy, which Job.Close frees; bag-of-words features,
// which the host store keeps sparse, and the CPU backend keep the host
// store; features that do not fit the device go to host memory it reads
// in place (gpu.PlaceAuto), or, with gpu.PlaceDevice, stay in the host's
// store; the notes say where.
func TestResidentFeatures(t *testing.T) {
	dev := gpu.NewEmulator(gpu.EmulatorOptions{MemoryBytes: 1 << 20})
	defer dev.Close()
	be, err := gpu.NewBackend(dev, gpu.BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	// A backend that keeps features in device memory or not at all.
	devOnly, err := gpu.NewBackend(dev, gpu.BackendOptions{Features: gpu.FeaturesOptions{Placement: gpu.PlaceDevice}})
	if err != nil {
		t.Fatal(err)
	}
	defer devOnly.Close()
	dense, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 300, Features: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sparse := &dataset.Dataset{Name: "bag of words", Adj: dense.Adj, NumFeatures: 100, Features: make([]float32, 300*100)}
	for v := range 300 {
		sparse.Features[v*100+v%100] = 1
	}
	huge := &dataset.Dataset{Name: "too large", Adj: dense.Adj, NumFeatures: 1000, Features: make([]float32, 300*1000)}
	for i := range huge.Features {
		huge.Features[i] = float32(i%7) - 3 // dense: kept dense by the host store
	}
	for _, c := range []struct {
		ds     *dataset.Dataset
		be     gnn.Backend
		device bool
		note   string
	}{{dense, be, true, ""}, {sparse, be, false, ""}, {dense, nil, false, ""},
		// Too large for the device: in host memory the device reads in
		// place (PlaceAuto), or the host's store (PlaceDevice).
		{huge, be, true, "is in page-locked host memory, which the device reads in place (it does not fit"},
		{huge, devOnly, false, "stay in host memory"}} {
		host, err := featurex.NewLocal(c.ds.Features, c.ds.NumFeatures, featurex.LocalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var notes strings.Builder
		opt := TrainerOptions{Runtime: RuntimeOptions{Backend: c.be}, Hooks: Hooks{Notes: &notes}}
		store, release := residentFeatures(opt, host, c.ds)
		_, onDevice := store.(*gpu.Features)
		if onDevice != c.device || (release != nil) != c.device {
			t.Errorf("%s, backend %v: features on the device %v (release %v); want %v", c.ds.Name, c.be, onDevice, release != nil, c.device)
		}
		if !strings.Contains(notes.String(), c.note) || (c.note == "") != (notes.Len() == 0) {
			t.Errorf("%s: notes %q; want %q", c.ds.Name, notes.String(), c.note)
		}
		if release != nil {
			job := &Job{release: release}
			if err := job.Close(); err != nil {
				t.Errorf("%s: Close: %v", c.ds.Name, err)
			}
			if err := job.Close(); err != nil {
				t.Errorf("%s: second Close: %v", c.ds.Name, err)
			}
		}
	}
}
