package train

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/atomicfile"
)

// Scores returns every vertex's class probabilities (Info.Nodes x
// Info.Classes, row-major: the softmax of the logits) by full-neighbour
// inference with the weights of the run's best epoch (Trainer.BestParams),
// or of its last epoch when none was kept (no epoch evaluated; best says
// which). The trainer's model is left with the weights it had. It is for
// a single-process job (New); a distributed job's ranks hold blocks of the
// graph, and it returns an error.
func (j *Job) Scores(ctx context.Context) (scores []float32, best bool, err error) {
	if j.whole == nil {
		return nil, false, errors.New("train: Scores needs the whole graph, which a rank of a distributed run does not hold")
	}
	m := j.Trainer.Model()
	params := j.Trainer.BestParams()
	if params != nil {
		last := append([]float32(nil), m.Params()...)
		m.SetParams(params)
		defer m.SetParams(last)
	}
	x := gnn.Input{Dense: j.whole.Features, Sparse: j.whole.SparseFeatures}
	logits, err := m.PredictScores(ctx, j.whole.Adj, x, j.whole.ChunkRows)
	if err != nil {
		return nil, false, err
	}
	Softmax(logits, m.Options().Classes)
	return logits, params != nil, nil
}

// Softmax replaces every row of the row-major logits (rows of classes
// values) by its softmax, computed in float64 from the row's maximum.
func Softmax(logits []float32, classes int) {
	for r := 0; r+classes <= len(logits); r += classes {
		z := logits[r : r+classes]
		mx := float64(z[0])
		for _, v := range z {
			mx = max(mx, float64(v))
		}
		var sum float64
		for _, v := range z {
			sum += math.Exp(float64(v) - mx)
		}
		for i, v := range z {
			z[i] = float32(math.Exp(float64(v)-mx) / sum)
		}
	}
}

// WriteScores writes scores (rows of classes values, one per vertex) to
// path, atomically (a temporary file renamed over it): a .npy file of
// float32 of shape (rows, classes) when path ends in .npy, or a CSV file
// when it ends in .csv, its header node,p_0,...,p_{classes-1} and then a
// line per vertex, its id and its values in the shortest form that reads
// back to the same float32. Another extension is an error.
func WriteScores(ctx context.Context, path string, scores []float32, classes int) error {
	if classes <= 0 || len(scores)%classes != 0 {
		return fmt.Errorf("train: WriteScores: %d values are not rows of %d classes", len(scores), classes)
	}
	rows := len(scores) / classes
	var write func(w io.Writer) error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		write = func(w io.Writer) error {
			return dataset.WriteNPYFloat32(w, []int64{int64(rows), int64(classes)}, scores)
		}
	case ".csv":
		write = func(w io.Writer) error { return writeScoresCSV(w, scores, classes) }
	default:
		return fmt.Errorf("train: %s: want a .npy or .csv file for the scores", path)
	}
	if err := atomicfile.Write(ctx, path, write); err != nil {
		return fmt.Errorf("train: write the scores: %w", err)
	}
	return nil
}

func writeScoresCSV(w io.Writer, scores []float32, classes int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("node")
	for c := range classes {
		bw.WriteString(",p_" + strconv.Itoa(c))
	}
	bw.WriteByte('\n')
	var buf []byte
	for r := 0; r*classes < len(scores); r++ {
		buf = strconv.AppendInt(buf[:0], int64(r), 10)
		for _, v := range scores[r*classes : (r+1)*classes] {
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, float64(v), 'g', -1, 32)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
