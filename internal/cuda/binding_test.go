//go:build cuda

package cuda

// The binding's checks that need no GPU (make test runs them in the cuda
// build: TestBinding*): the context's thread, the loading of libraries
// and their dependencies, the cuSPARSE feature groups, and CreateCSR's
// precondition. Fake libraries are compiled by the C compiler in a
// temporary folder.

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// doWithin runs c.Do(fn) and fails the test if it does not return in 10 s.
func doWithin(t *testing.T, c *Context, fn func(*Thread) error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Do(fn) }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Context.Do has not returned after 10 s")
		return nil
	}
}

// TestBindingGoexit checks that a function that ends Do's goroutine with
// runtime.Goexit (what t.Fatal does) makes Do return ErrGoexit instead of
// hanging, and that the context goes on, on another locked thread; and that
// a panic in the function is re-raised in Do's caller.
func TestBindingGoexit(t *testing.T) {
	c := &Context{work: make(chan func())}
	if err := c.startThread(c.work, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tid := func() int {
		var id int
		if err := doWithin(t, c, func(*Thread) error { id = syscall.Gettid(); return nil }); err != nil {
			t.Fatal(err)
		}
		return id
	}
	before := tid()
	if again := tid(); again != before {
		t.Fatalf("two calls ran on threads %d and %d: the context's thread is not locked", before, again)
	}
	err := doWithin(t, c, func(*Thread) error {
		runtime.Goexit()
		return nil
	})
	if !errors.Is(err, ErrGoexit) {
		t.Fatalf("Do of a function that calls runtime.Goexit: %v, want ErrGoexit", err)
	}
	after := tid()
	if after == before {
		t.Errorf("after runtime.Goexit the context still runs on thread %d, which ended", before)
	}
	if again := tid(); again != after {
		t.Errorf("the new thread is not locked: %d, then %d", after, again)
	}
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("Do of a panicking function: recovered %v, want boom", p)
			}
		}()
		c.Do(func(*Thread) error { panic("boom") })
	}()
	if err := doWithin(t, c, func(*Thread) error { return nil }); err != nil {
		t.Errorf("Do after a panic: %v", err)
	}
}

// TestBindingSideThread checks DoSide: its calls run on a second locked
// thread, started at the first, and a DoSide call that blocks does not
// hold up Do's; its Thread refuses the libraries of Do's thread; Close ends
// both.
func TestBindingSideThread(t *testing.T) {
	c := &Context{work: make(chan func())}
	if err := c.startThread(c.work, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var mainTID, sideTID, sideAgain int
	if err := doWithin(t, c, func(*Thread) error { mainTID = syscall.Gettid(); return nil }); err != nil {
		t.Fatal(err)
	}
	release, entered, sideDone := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		sideDone <- c.DoSide(func(th *Thread) error {
			sideTID = syscall.Gettid()
			close(entered)
			<-release // a blocking wait on the side thread
			if _, err := th.Sparse(); !errors.Is(err, errSideLibrary) {
				return errors.New("Sparse on the side thread: want errSideLibrary")
			}
			if _, err := th.BLAS(); !errors.Is(err, errSideLibrary) {
				return errors.New("BLAS on the side thread: want errSideLibrary")
			}
			return nil
		})
	}()
	<-entered
	// Do goes on while the side call blocks.
	if err := doWithin(t, c, func(*Thread) error { return nil }); err != nil {
		t.Fatalf("Do while a DoSide call blocks: %v", err)
	}
	close(release)
	select {
	case err := <-sideDone:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("DoSide has not returned after 10 s")
	}
	if sideTID == mainTID {
		t.Fatalf("DoSide ran on Do's thread %d", mainTID)
	}
	if err := c.DoSide(func(*Thread) error { sideAgain = syscall.Gettid(); return nil }); err != nil {
		t.Fatal(err)
	}
	if sideAgain != sideTID {
		t.Errorf("two DoSide calls ran on threads %d and %d: the side thread is not locked", sideTID, sideAgain)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.DoSide(func(*Thread) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("DoSide after Close: %v, want ErrClosed", err)
	}
}

// cc compiles C source src into the shared library dir/name, with extra
// flags, or skips without a C compiler.
func cc(t *testing.T, dir, name, src string, extra ...string) string {
	t.Helper()
	compiler := os.Getenv("CC")
	if compiler == "" {
		compiler = "cc"
	}
	if _, err := exec.LookPath(compiler); err != nil {
		skipOrFail(t, "no C compiler ("+compiler+")")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name+".c")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	args := append([]string{"-shared", "-fPIC", "-o", out, "-Wl,-soname," + name, file}, extra...)
	if b, err := exec.Command(compiler, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", compiler, args, err, b)
	}
	return out
}

// TestBindingDependencies checks that openLib loads a library whose
// dependency lies where the loader does not look (the layout of NVIDIA's
// Python wheels: nvidia/cusparse/lib needs nvidia/nvjitlink/lib), by
// loading the dependency first, and records it; that without the
// dependency the error names it; and that LoadedLibraries then lists the
// library with its soname and NEEDED entries.
func TestBindingDependencies(t *testing.T) {
	root := t.TempDir()
	depDir := filepath.Join(root, "site-packages", "nvidia", "bsdep", "lib")
	mainDir := filepath.Join(root, "site-packages", "nvidia", "bsmain", "lib")
	cc(t, depDir, "libbsdep.so.7", "int bs_dep_value(void) { return 7; }\n")
	cc(t, mainDir, "libbsmain.so.3", "int bs_dep_value(void);\nint bs_main_value(void) { return bs_dep_value() + 1; }\n",
		"-L"+depDir, "-l:libbsdep.so.7")
	lonely := filepath.Join(root, "lonely")
	cc(t, lonely, "libbslonely.so.1", "int bs_dep_value(void);\nint bs_lonely(void) { return bs_dep_value(); }\n",
		"-L"+depDir, "-l:libbsdep.so.7")

	// First, so that libbsdep.so.7 is not loaded yet.
	t.Setenv(libFolderEnv, lonely)
	if _, _, err := openLib("the lonely test library", []string{"libbslonely.so.1"}); err == nil || !strings.Contains(err.Error(), "libbsdep.so.7") {
		t.Errorf("a library whose dependency is nowhere: %v, want an error naming libbsdep.so.7", err)
	}

	t.Setenv(libFolderEnv, "/nonexistent:"+mainDir)
	_, lib, err := openLib("the test library", []string{"libbsmain.so.4", "libbsmain.so.3"})
	if err != nil {
		t.Fatalf("openLib of a library whose dependency lies in a sibling wheel folder: %v", err)
	}
	if want := filepath.Join(mainDir, "libbsmain.so.3"); lib.Path != want || !slices.Equal(lib.Deps, []string{filepath.Join(depDir, "libbsdep.so.7")}) {
		t.Errorf("loaded %v; want %s after %s", lib, want, filepath.Join(depDir, "libbsdep.so.7"))
	}
	libs, err := LoadedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, l := range libs {
		if l.Path == lib.Path {
			found = true
			if l.Soname != "libbsmain.so.3" || l.Version != "3" || !slices.Contains(l.Needed, "libbsdep.so.7") {
				t.Errorf("LoadedLibraries: %+v; want soname libbsmain.so.3, version 3, NEEDED libbsdep.so.7", l)
			}
		}
	}
	if !found {
		t.Errorf("LoadedLibraries lists no %s among %d libraries", lib.Path, len(libs))
	}
}

// fakeCusparse is the C source of a library that exports the cuSPARSE
// functions of decl.h except those named in omit; the handle, version and
// status-name functions work, the others are never called by the test.
func fakeCusparse(omit ...string) string {
	var b strings.Builder
	b.WriteString("int cusparseCreate(void **h) { static int x; *h = &x; return 0; }\n")
	b.WriteString("int cusparseDestroy(void *h) { return 0; }\n")
	b.WriteString("int cusparseGetVersion(void *h, int *v) { *v = 12603; return 0; }\n")
	b.WriteString("const char *cusparseGetErrorName(int s) { return \"CUSPARSE_STATUS_FAKE\"; }\n")
	for _, f := range []string{"cusparseCreateCsr", "cusparseDestroySpMat", "cusparseSpMatGetSize", "cusparseCsrSetPointers",
		"cusparseCreateDnMat", "cusparseDestroyDnMat", "cusparseSpMM_bufferSize", "cusparseSpMM",
		"cusparseSpGEMM_createDescr", "cusparseSpGEMM_destroyDescr", "cusparseSpGEMM_workEstimation", "cusparseSpGEMM_compute",
		"cusparseSpGEMM_copy", "cusparseSpGEMM_getNumProducts", "cusparseSpGEMM_estimateMemory",
		"cusparseSpGEMMreuse_workEstimation", "cusparseSpGEMMreuse_nnz", "cusparseSpGEMMreuse_copy", "cusparseSpGEMMreuse_compute"} {
		if !slices.Contains(omit, f) {
			b.WriteString("int " + f + "(void) { return 0; }\n")
		}
	}
	return b.String()
}

// TestBindingFeatures loads fake cuSPARSE libraries that each lack one
// function and checks that only the feature group that needs it is
// disabled, with an error that names the function, and that a library
// without a core function is refused, naming it.
func TestBindingFeatures(t *testing.T) {
	root := t.TempDir()
	for i, c := range []struct {
		omit    string
		lacking []Feature // the features it must lack; the others it must have
	}{
		{"", nil},
		{"cusparseSpGEMMreuse_copy", []Feature{FeatureSpGEMMReuse}},
		{"cusparseSpGEMM_estimateMemory", []Feature{FeatureSpGEMMEstimate}}, // a CUDA 11 library
		{"cusparseSpMM", []Feature{FeatureSpMM}},
		{"cusparseSpGEMM_copy", []Feature{FeatureSpGEMM, FeatureSpGEMMEstimate, FeatureSpGEMMReuse}},
	} {
		dir := filepath.Join(root, string(rune('a'+i)))
		name := "libbscusparse" + string(rune('a'+i)) + ".so.12"
		cc(t, dir, name, fakeCusparse(c.omit))
		t.Setenv(libFolderEnv, dir)
		s, err := openSparse([]string{name})
		if err != nil {
			t.Fatalf("without %q: %v", c.omit, err)
		}
		if s.Version != 12603 {
			t.Errorf("version %d, want the fake's 12603", s.Version)
		}
		for f := FeatureSpMM; f <= FeatureSpGEMMReuse; f++ {
			err := s.Unavailable(f)
			switch want := slices.Contains(c.lacking, f); {
			case want && (err == nil || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), c.omit)):
				t.Errorf("without %s: %v: %v, want unavailable naming it", c.omit, f, err)
			case !want && err != nil:
				t.Errorf("without %q: %v: %v, want available", c.omit, f, err)
			}
		}
		// A call of a missing feature names the function, without calling it.
		if c.omit == "cusparseSpGEMMreuse_copy" {
			if _, err := s.ReuseCopy(SpMat{}, SpMat{}, SpMat{}, SpGEMM{}, 0, 0); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), c.omit) {
				t.Errorf("ReuseCopy without %s: %v", c.omit, err)
			}
		}
		t.Logf("without %q: %s", c.omit, s.Features())
	}
	dir := filepath.Join(root, "core")
	cc(t, dir, "libbscusparsecore.so.12", fakeCusparse("cusparseCsrSetPointers"))
	t.Setenv(libFolderEnv, dir)
	if _, err := openSparse([]string{"libbscusparsecore.so.12"}); err == nil || !strings.Contains(err.Error(), "cusparseCsrSetPointers") {
		t.Errorf("a library without a core function: %v, want an error naming cusparseCsrSetPointers", err)
	}
}

// TestBindingNullOffsets checks that CreateCSR refuses NULL row offsets for
// a matrix with rows, as cuSPARSE 12.2 and later do, whatever the library.
func TestBindingNullOffsets(t *testing.T) {
	_, err := (&Sparse{}).CreateCSR(5, 7, 0, 0, 0, 0)
	var e *Error
	if !errors.As(err, &e) || e.Code != 3 || e.Name != "CUSPARSE_STATUS_INVALID_VALUE" || !strings.Contains(err.Error(), "5 x 7") {
		t.Fatalf("CreateCSR(5 x 7) with NULL offsets: %v, want CUSPARSE_STATUS_INVALID_VALUE naming the shape", err)
	}
}
