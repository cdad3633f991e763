package train

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/atomicfile"
	"github.com/bulksample/bulksample/internal/lebin"
	"github.com/bulksample/bulksample/sampling"
)

// CheckpointFile is the name of the checkpoint inside TrainerOptions'
// Checkpoint.Dir.
const CheckpointFile = "checkpoint.gob"

// checkpointVersion changes whenever the layout of checkpoint does. Version
// 2 added Partial; a version 1 file is a version 2 file without it. Version
// 3 added the checksum trailer (checksumMagic): files of versions 1 and 2
// have none and are read unchecked. Version 4 records the split and the
// fingerprints of the sampler and the data in Config (recordedSince4).
// Version 5 writes the float arrays raw (firstRawVersion). Version 6 adds
// BestParams (a fourth raw array) and the epochs' measures (EpochStats'
// Evaluated, Train, Valid and Test; the history of an older file is read
// as evaluated by accuracy alone, upgradeHistory). Every version is still
// read.
const checkpointVersion = 6

// A checkpoint file is the gob encoding of checkpoint followed by an 8-byte
// trailer: checksumMagic and the little-endian CRC-32C of what precedes
// it. Gob decodes flipped bits in the parameters without complaint, so
// without it a damaged file resumed a run from silently altered weights.
//
// From version 5 (firstRawVersion) the gob encoding leaves out Params,
// AdamM and AdamV, whose lengths RawLens gives, and the three arrays follow
// it as little-endian float32 (lebin, the native dataset format's
// encoding), before the trailer, whose CRC-32C covers them too. Gob encodes
// a float32 element by element (byte-reversed, as a varint): the save of a
// 1.5M-parameter model spent 47% of its CPU time there, and a checkpoint
// after every epoch tripled a Cora epoch at hidden 512.
const (
	checksumMagic        = "bsck"
	trailerLen           = 8
	lastUncheckedVersion = 2
	firstRawVersion      = 5
	firstBestVersion     = 6
)

// checkpoint is what a checkpoint file holds (encoding/gob).
type checkpoint struct {
	Version int
	// Config holds the options that must match for a resume to continue
	// the same run, by name.
	Config     map[string]string
	EpochsDone int
	Params     []float32
	AdamM      []float32
	AdamV      []float32
	AdamT      int64
	History    []EpochStats
	// Partial, when not nil, is the progress of epoch EpochsDone, which a
	// stopped run left unfinished: Params and the Adam state are those
	// after its first Partial.Stats.Minibatches minibatches.
	Partial *partialEpoch
	// BestParams, from version 6, are the parameters after the best
	// epoch of the history (Trainer.BestParams); nil when none was
	// evaluated.
	BestParams []float32
	// RawLens, from version 5, are the lengths of Params, AdamM and AdamV
	// (and from version 6 BestParams), which follow the gob encoding raw
	// rather than inside it.
	RawLens []int
}

// rawArrays returns the arrays of ck that version v writes raw, in order.
func (ck *checkpoint) rawArrays(v int) []*[]float32 {
	a := []*[]float32{&ck.Params, &ck.AdamM, &ck.AdamV}
	if v >= firstBestVersion {
		a = append(a, &ck.BestParams)
	}
	return a
}

// config returns the options a resumed run must share with the run that
// wrote the checkpoint. Threads, the BLAS and the epoch count may differ.
func (t *Trainer) config() map[string]string {
	o, a := t.model.Options(), t.adam.Options()
	p := t.plan.Options()
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	cfg := map[string]string{
		"model":        o.Arch.String(),
		"layers":       strconv.Itoa(o.Layers),
		"hidden":       strconv.Itoa(o.Hidden),
		"features":     strconv.Itoa(o.InFeatures),
		"classes":      strconv.Itoa(o.Classes),
		"dropout":      g(float64(o.Dropout)),
		"seed":         strconv.FormatUint(o.Seed, 10),
		"lr":           g(a.LR),
		"beta1":        g(a.Beta1),
		"beta2":        g(a.Beta2),
		"eps":          g(a.Eps),
		"weight-decay": g(a.WeightDecay),
		"batch":        strconv.Itoa(p.BatchSize),
		"bulk":         strconv.Itoa(p.BulkSize),
		"nodes":        strconv.Itoa(t.data.Features.NumVertices()),
		"train":        strconv.Itoa(len(t.data.Train)),
	}
	if o.Arch == gnn.GCN {
		cfg["gcn-norm"] = o.GCNNorm.String()
	}
	// The residual architecture's options, only when set, so that the
	// checkpoints of plain models written before them still match.
	if o.Residual {
		cfg["residual"] = "true"
	}
	if o.Norm != gnn.NormNone {
		cfg["norm"] = o.Norm.String()
	}
	if a.DecayedParams > 0 {
		cfg["decayed-params"] = strconv.Itoa(a.DecayedParams)
	}
	// The split itself, not only its training count: another --split-seed
	// or --split-file trains on other vertices.
	cfg[splitKey] = SplitFingerprint(t.data.Train, t.data.Valid, t.data.Test)
	for _, st := range t.fingerprints() {
		if _, own := cfg[st.Key]; !own {
			cfg[st.Key] = st.Value
		}
	}
	return cfg
}

// fingerprints returns the settings of the sampler (when it is a
// sampling.Fingerprinter) and of the data's preparation (Data.Fingerprint),
// which the trainer cannot see and a resumed run must share: the sampler,
// its fanouts or budgets and matrix, whether the feature rows were
// normalised. A resume with another fanout used to go on silently, then
// overwrite the checkpoint with a mix of two runs.
func (t *Trainer) fingerprints() sampling.Fingerprint {
	var f sampling.Fingerprint
	if fp, ok := t.sampler.(sampling.Fingerprinter); ok {
		f = append(f, fp.Fingerprint()...)
	}
	return append(f, t.data.Fingerprint...)
}

// splitKey is the checkpoint's record of the split (splitHash).
const splitKey = "split"

// SplitFingerprint describes a split by its sizes and the hash of its
// vertices ("140/500/1000 vertices, hash 9f3c..."): a checkpoint records it,
// and the ranks of a data-parallel run compare theirs.
func SplitFingerprint(train, valid, test []int32) string {
	return fmt.Sprintf("%d/%d/%d vertices, hash %s", len(train), len(valid), len(test), splitHash(train, valid, test))
}

// splitHash returns the FNV-1a hash of the three sets of a split, in
// order, each led by its length, in hex.
func splitHash(sets ...[]int32) string {
	h := fnv.New64a()
	var b [8]byte
	for _, s := range sets {
		binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
		h.Write(b[:])
		for _, v := range s {
			binary.LittleEndian.PutUint32(b[:4], uint32(v))
			h.Write(b[:4])
		}
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// recordedSince4 reports whether config key k is one that checkpoints
// record since version 4 (the split, and the fingerprints of the sampler
// and the data): older checkpoints lack it, which is not a difference.
func (t *Trainer) recordedSince4(k string) bool {
	return k == splitKey || slices.ContainsFunc(t.fingerprints(), func(s sampling.Setting) bool { return s.Key == k })
}

// save writes the checkpoint after epochsDone epochs and, when partial is
// not nil, part of the next, through atomicfile.Write: to a temporary file
// in the directory, synced, then renamed over CheckpointFile and the
// directory synced, so that a crash leaves either the old or the new
// checkpoint, never a torn one. The temporary file stays locked until it
// is renamed, so that no RemoveStale removes it meanwhile; the run holds
// the folder (LockCheckpoint), so that no other run saves there at all.
// On an error (a full disk, a file-size limit, a directory that is not
// one) the temporary file is removed, the previous checkpoint is left as
// it was, and the error names the path that could not be written.
func (t *Trainer) save(epochsDone int, history []EpochStats, partial *partialEpoch) error {
	dir := t.opt.Checkpoint.Dir
	path := filepath.Join(dir, CheckpointFile)
	if err := os.MkdirAll(dir, 0o777); err != nil { // less the umask
		return fmt.Errorf("train: write checkpoint %s: %w", path, err)
	}
	if !t.writesCheckpoints() {
		return nil // rank 0 writes the data-parallel run's checkpoint
	}
	t.adam.Sync()
	ck := checkpoint{
		Version: checkpointVersion, Config: t.config(), EpochsDone: epochsDone,
		Params: t.model.Params(), AdamM: t.adam.M, AdamV: t.adam.V, AdamT: t.adam.T,
		History: history, Partial: partial, BestParams: t.best,
	}
	ck.Config[ranksKey] = strconv.Itoa(t.ranks())
	if err := atomicfile.Write(context.Background(), path, func(w io.Writer) error { return encodeCheckpoint(w, &ck) }); err != nil {
		return fmt.Errorf("train: checkpoint: %w", err)
	}
	return nil
}

// removeStaleCheckpoints removes the temporary checkpoint files that a run
// killed while saving (kill -9, a second SIGTERM) left in Checkpoint.Dir,
// and says so in Hooks.Notes: only files of the checkpoint's own temporary
// naming that no writer holds locked (atomicfile.RemoveStale; a writer
// holds its temporary locked until it is renamed), so that a save in
// progress keeps its file even in a folder that a run of an older release,
// which took no claim on the folder, shares. Only the rank that writes
// checkpoints does it, once it holds the folder's claim. A folder it cannot
// read costs nothing but the space: the save reports it.
func (t *Trainer) removeStaleCheckpoints() {
	if t.opt.Checkpoint.Dir == "" || !t.writesCheckpoints() {
		return
	}
	removed, err := atomicfile.RemoveStale(t.opt.Checkpoint.Dir, CheckpointFile)
	var size int64
	for _, r := range removed {
		size += r.Size
	}
	if len(removed) > 0 {
		s := "s"
		if len(removed) == 1 {
			s = ""
		}
		t.note(fmt.Sprintf("train: removed %d stale temporary checkpoint file%s (%.1f MB) from %s, left by a run killed while saving",
			len(removed), s, float64(size)/1e6, t.opt.Checkpoint.Dir))
	}
	if err != nil {
		t.note(fmt.Sprintf("train: note: %v", err))
	}
}

// loadCheckpoint reads the checkpoint of dir; it returns nil, nil when there
// is none.
func loadCheckpoint(dir string) (*checkpoint, error) {
	path := filepath.Join(dir, CheckpointFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("train: read checkpoint: %w", err)
	}
	ck, err := decodeCheckpoint(b)
	if err != nil {
		return nil, fmt.Errorf("train: read checkpoint %s: %w", path, err)
	}
	return ck, nil
}

// encodeCheckpoint writes ck to w as a checkpoint file of ck.Version holds
// it: the gob encoding (from version 5 without the float arrays, which
// follow it raw), then the checksum trailer. Versions before 5 are written
// only by tests, as older releases wrote them.
func encodeCheckpoint(w io.Writer, ck *checkpoint) error {
	sum := lebin.NewCRC32C()
	// Unbuffered: gob writes a message per call, and save writes through
	// atomicfile's buffer.
	mw := io.MultiWriter(w, sum)
	meta, raw := *ck, [][]float32(nil)
	if ck.Version >= firstRawVersion {
		meta.RawLens = nil
		for _, a := range meta.rawArrays(ck.Version) {
			raw = append(raw, *a)
			meta.RawLens = append(meta.RawLens, len(*a))
			*a = nil
		}
	}
	if err := gob.NewEncoder(mw).Encode(&meta); err != nil {
		return err
	}
	for _, a := range raw {
		if err := lebin.Write(mw, a); err != nil {
			return err
		}
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32([]byte(checksumMagic), sum.Sum32()))
	return err
}

// decodeCheckpoint decodes the bytes of a checkpoint file of any version,
// checking the checksum of a file that has one and the version of one that
// has none.
func decodeCheckpoint(b []byte) (*checkpoint, error) {
	checked := false
	if n := len(b) - trailerLen; n >= 0 && string(b[n:n+len(checksumMagic)]) == checksumMagic {
		want := binary.LittleEndian.Uint32(b[n+len(checksumMagic):])
		if got := crc32.Checksum(b[:n], lebin.Castagnoli); got != want {
			return nil, fmt.Errorf("checksum mismatch (CRC-32C %08x, recorded %08x): the file is corrupt", got, want)
		}
		b, checked = b[:n], true
	}
	var ck checkpoint
	r := bytes.NewReader(b) // a ByteReader: gob reads no further than its message
	if err := gob.NewDecoder(r).Decode(&ck); err != nil {
		return nil, fmt.Errorf("not a checkpoint, or a corrupt one: %w", err)
	}
	switch {
	case ck.Version < 1 || ck.Version > checkpointVersion:
		return nil, fmt.Errorf("version %d, want 1 to %d", ck.Version, checkpointVersion)
	case ck.Version > lastUncheckedVersion && !checked:
		return nil, fmt.Errorf("version %d without its checksum: the file is truncated or corrupt", ck.Version)
	case ck.Version < firstRawVersion:
		upgradeHistory(&ck)
		return &ck, nil
	}
	rest := b[len(b)-r.Len():]
	dst := ck.rawArrays(ck.Version)
	if len(ck.RawLens) != len(dst) || len(ck.Params)+len(ck.AdamM)+len(ck.AdamV)+len(ck.BestParams) != 0 {
		return nil, fmt.Errorf("version %d: %d raw array lengths, want %d (Params, AdamM, AdamV, and from version %d BestParams): the file is corrupt",
			ck.Version, len(ck.RawLens), len(dst), firstBestVersion)
	}
	total := 0
	for _, n := range ck.RawLens {
		if n < 0 || n > len(rest)/4 {
			return nil, fmt.Errorf("version %d: raw arrays of %v values in %d bytes: the file is corrupt", ck.Version, ck.RawLens, len(rest))
		}
		total += n
	}
	if 4*total != len(rest) {
		return nil, fmt.Errorf("version %d: raw arrays of %v values in %d bytes: the file is corrupt", ck.Version, ck.RawLens, len(rest))
	}
	for i, n := range ck.RawLens {
		v, err := lebin.ReadFloat32s(rest[:4*n])
		if err != nil {
			return nil, err
		}
		*dst[i], rest = v, rest[4*n:]
	}
	if len(ck.BestParams) == 0 {
		ck.BestParams = nil
	}
	ck.RawLens = nil
	upgradeHistory(&ck)
	return &ck, nil
}

// upgradeHistory reads the history of a checkpoint older than version 6,
// whose epochs carry accuracies only, as epochs evaluated by accuracy: the
// valid and test accuracies become their measures, with NaN for macro-F1
// and the AUC, which were never measured (a run ranking by them finds no
// best epoch among those).
func upgradeHistory(ck *checkpoint) {
	if ck.Version >= firstBestVersion {
		return
	}
	for i := range ck.History {
		st := &ck.History[i]
		st.Evaluated = true
		st.Valid = gnn.Measures{Accuracy: st.ValAcc, MacroF1: math.NaN(), AUC: math.NaN()}
		st.Test = gnn.Measures{Accuracy: st.TestAcc, MacroF1: math.NaN(), AUC: math.NaN()}
		st.Train = gnn.Measures{MacroF1: math.NaN(), AUC: math.NaN()}
	}
}

// configValue formats option k of a configuration: k="v", or "no k" when
// the configuration has none (a default that config leaves out).
func configValue(k, v string, ok bool) string {
	if !ok {
		return "no " + k
	}
	return fmt.Sprintf("%s=%q", k, v)
}

// restore loads ck into the trainer after checking that it comes from the
// same configuration.
func (t *Trainer) restore(ck *checkpoint) error {
	path := filepath.Join(t.opt.Checkpoint.Dir, CheckpointFile)
	if err := t.checkRanks(ck, path); err != nil {
		return err
	}
	// Every option that differs is named, in both directions: the first
	// alone named gcn-norm when --model changed from sage to gcn, and an
	// option only the checkpoint had (decayed-params, written by
	// --weight-decay-layers first) was not compared at all.
	want := t.config()
	keys := make([]string, 0, len(want)+len(ck.Config))
	for k := range want {
		keys = append(keys, k)
	}
	for k := range ck.Config {
		if _, ok := want[k]; !ok && k != ranksKey { // checkRanks compared it
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var was, has []string
	for _, k := range keys {
		got, inCk := ck.Config[k]
		w, inRun := want[k]
		if inCk && inRun && got == w || !inCk && ck.Version < 4 && t.recordedSince4(k) {
			continue
		}
		was = append(was, configValue(k, got, inCk))
		has = append(has, configValue(k, w, inRun))
	}
	if len(was) > 0 {
		return fmt.Errorf("train: checkpoint %s was written with %s; this run has %s", path, strings.Join(was, ", "), strings.Join(has, ", "))
	}
	n := len(t.model.Params())
	switch {
	case len(ck.Params) != n:
		return fmt.Errorf("train: checkpoint %s: Params has %d values, want %d", path, len(ck.Params), n)
	case ck.BestParams != nil && len(ck.BestParams) != n:
		return fmt.Errorf("train: checkpoint %s: BestParams has %d values, want %d", path, len(ck.BestParams), n)
	case len(ck.AdamM) != n || len(ck.AdamV) != n:
		return fmt.Errorf("train: checkpoint %s: Adam moments have %d and %d values, want %d", path, len(ck.AdamM), len(ck.AdamV), n)
	case ck.EpochsDone < 0 || ck.EpochsDone != len(ck.History) || ck.AdamT < 0:
		return fmt.Errorf("train: checkpoint %s: %d epochs done but %d in the history", path, ck.EpochsDone, len(ck.History))
	case ck.Partial != nil && (ck.Partial.Stats.Epoch != ck.EpochsDone || ck.Partial.Stats.Minibatches < 0 ||
		ck.Partial.Stats.Minibatches > t.plan.NumMinibatches()):
		return fmt.Errorf("train: checkpoint %s: partial epoch %d with %d minibatches after %d epochs done (%d per epoch)",
			path, ck.Partial.Stats.Epoch, ck.Partial.Stats.Minibatches, ck.EpochsDone, t.plan.NumMinibatches())
	}
	t.model.SetParams(ck.Params)
	t.adam.SetMoments(ck.AdamM, ck.AdamV)
	t.adam.T = ck.AdamT
	return nil
}
