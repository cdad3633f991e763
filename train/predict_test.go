package train_test

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/train"
)

// TestScores: a job's scores are every vertex's class probabilities under
// the best epoch's weights (rows sum to 1; their arg-max is the prediction
// of a model with those weights), and the trainer's model keeps its last
// weights; WriteScores writes them as .npy (header and little-endian
// float32 numpy reads) and .csv (a header, then node and values that parse
// back to the same float32), and refuses another extension.
func TestScores(t *testing.T) {
	ds := planted(t)
	opt := options(gnn.SAGE, "", 4, 4)
	opt.Trainer.Plan.Epochs = 3
	job, err := train.New(ds, opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := job.Trainer.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	last := append([]float32(nil), job.Trainer.Model().Params()...)
	scores, best, err := job.Scores(ctx)
	if err != nil || !best {
		t.Fatalf("Scores: best %v, %v", best, err)
	}
	if got := job.Trainer.Model().Params(); !slices.Equal(got, last) {
		t.Error("Scores changed the model's weights")
	}
	m, err := gnn.NewModel(job.Trainer.Model().Options())
	if err != nil {
		t.Fatal(err)
	}
	m.SetParams(job.Trainer.BestParams())
	pred, err := m.Predict(ctx, ds.Adj, ds.Features, 0)
	if err != nil {
		t.Fatal(err)
	}
	const c = 3
	n := ds.NumNodes()
	if len(scores) != n*c {
		t.Fatalf("%d scores; want %d", len(scores), n*c)
	}
	for v := range n {
		row := scores[v*c : (v+1)*c]
		sum, arg := 0.0, 0
		for j, p := range row {
			sum += float64(p)
			if p > row[arg] {
				arg = j
			}
		}
		if math.Abs(sum-1) > 1e-5 || int32(arg) != pred[v] {
			t.Fatalf("vertex %d: probabilities %v (sum %v, arg-max %d); prediction %d", v, row, sum, arg, pred[v])
		}
	}
	dir := t.TempDir()
	npy := filepath.Join(dir, "p.npy")
	if err := train.WriteScores(ctx, npy, scores, c); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(npy)
	if err != nil {
		t.Fatal(err)
	}
	hl := int(binary.LittleEndian.Uint16(b[8:10]))
	header, data := string(b[10:10+hl]), b[10+hl:]
	if string(b[:6]) != "\x93NUMPY" || !strings.Contains(header, "'descr': '<f4'") || !strings.Contains(header, "'shape': (400, 3)") ||
		(10+hl)%64 != 0 || len(data) != 4*n*c || math.Float32frombits(binary.LittleEndian.Uint32(data[4*(n*c-1):])) != scores[n*c-1] {
		t.Errorf(".npy: header %q, %d data bytes", header, len(data))
	}
	csv := filepath.Join(dir, "p.csv")
	if err := train.WriteScores(ctx, csv, scores, c); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	if len(lines) != n+1 || lines[0] != "node,p_0,p_1,p_2" {
		t.Fatalf(".csv: %d lines, header %q", len(lines), lines[0])
	}
	for v, line := range lines[1:] {
		f := strings.Split(line, ",")
		if f[0] != strconv.Itoa(v) || len(f) != c+1 {
			t.Fatalf(".csv line %d: %q", v+2, line)
		}
		for j, s := range f[1:] {
			x, err := strconv.ParseFloat(s, 32)
			if err != nil || float32(x) != scores[v*c+j] {
				t.Fatalf(".csv line %d: %q does not read back as %v", v+2, s, scores[v*c+j])
			}
		}
	}
	if err := train.WriteScores(ctx, filepath.Join(dir, "p.txt"), scores, c); err == nil {
		t.Error("WriteScores to .txt: no error")
	}
}
