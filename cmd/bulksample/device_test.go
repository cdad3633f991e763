package main

import (
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gpu"
)

// TestDeviceFlag checks --device's values and exclusions (exit 2), and, in
// a binary built without the cuda tag, that --device cuda exits 1 saying
// how to build one with CUDA.
func TestDeviceFlag(t *testing.T) {
	g := sampleTestGraph(t)
	for _, c := range []struct {
		command string
		args    []string
		want    string
	}{
		{"sample", []string{"--graph", g, "--device", "tpu"}, `--device "tpu": want cpu or cuda`},
		{"sample", []string{"--graph", g, "--device", "cuda", "--baseline"}, "--baseline applies to the CPU only"},
		{"sample", []string{"--graph", g, "--device", "cuda", "--max-bulk-edges", "9"}, "--max-bulk-edges applies to the CPU only"},
		{"sample", []string{"--graph", g, "--device", "cuda", "--method", "ladies", "--semibulk", "2"}, "--semibulk applies to the CPU only"},
		{"sample", []string{"--graph", g, "--device", "cuda", "--inproc-ranks", "2"}, "--device cuda: one process only"},
		{"spgemm", []string{"--a", g, "--device", "gpu"}, `--device "gpu": want cpu or cuda`},
		{"spgemm", []string{"--a", g, "--device", "cuda", "--accumulator", "hash"}, "--accumulator applies to the CPU only"},
	} {
		code, _, stderr := runCLI(t, c.command, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s %v: exit %d, want 2 with %q:\n%s", c.command, c.args, code, c.want, stderr)
		}
	}
	if gpu.Built() {
		return // device_cuda_test.go
	}
	for _, command := range [][]string{{"sample", "--graph", g, "--device", "cuda"}, {"spgemm", "--a", g, "--device", "cuda"}, {"device"}} {
		code, _, stderr := runCLI(t, command[0], command[1:]...)
		if code != 1 || !strings.Contains(stderr, "built without CUDA support") || !strings.Contains(stderr, "make build CUDA=1") {
			t.Errorf("%v without the cuda tag: exit %d, want 1 saying how to build:\n%s", command, code, stderr)
		}
	}
}

// TestDeviceFacts checks what `bulksample device` prints of a device's
// facts, and its usage error.
func TestDeviceFacts(t *testing.T) {
	f := gpu.Facts{Device: "NVIDIA H200 (device 0)", Driver: "/usr/lib/libcuda.so.1", DriverVersion: 13000, OpenSeconds: 0.5,
		ModuleSeconds: 0.125, Image: "SASS for sm_80 and sm_90, PTX for compute_80",
		CUSPARSE: gpu.LibraryFacts{Path: "/opt/nvidia/cu13/lib/libcusparse.so.12", Version: 12603, Deps: []string{"/opt/nvidia/cu13/lib/libnvJitLink.so.13"}, Features: "has SpMM"},
		CUBLAS:   gpu.LibraryFacts{Error: "cuda: cannot load cuBLAS"},
		Loaded:   []gpu.LoadedObject{{Path: "/opt/nvidia/cu13/lib/libcusparse.so.12.6.3.3", Version: "12.6.3.3", Soname: "libcusparse.so.12", Needed: []string{"libnvJitLink.so.13", "libc.so.6"}, Runpath: "$ORIGIN"}},
		Kernels:  []gpu.KernelFacts{{Name: "bs_fill_i32", Registers: 16, LocalBytes: 8, SharedBytes: 0, MaxThreadsPerBlock: 1024, PTXVersion: 80, BinaryVersion: 90}},
	}
	var b strings.Builder
	writeFacts(&b, f)
	for _, want := range []string{"device: NVIDIA H200", "driver: /usr/lib/libcuda.so.1 (CUDA 13.0)", "open: 0.500 s, of which 0.125 s",
		"cusparse: version 12603, /opt/nvidia/cu13/lib/libcusparse.so.12, loaded after /opt/nvidia/cu13/lib/libnvJitLink.so.13; has SpMM",
		"cublas: cuda: cannot load cuBLAS", "(version 12.6.3.3) soname libcusparse.so.12; NEEDED libnvJitLink.so.13, libc.so.6; RUNPATH $ORIGIN",
		"bs_fill_i32", "16 regs", "8 local", "1024 threads", "ptx 80 sass 90"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in:\n%s", want, b.String())
		}
	}
	if code, _, stderr := runCLI(t, "device", "extra"); code != 2 || !strings.Contains(stderr, `unexpected argument "extra"`) {
		t.Errorf("device extra: exit %d:\n%s", code, stderr)
	}
}
