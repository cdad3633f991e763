package main

// `bulksample device`: what a run on a GPU records of its machine (the
// device bundle's machine.txt): the device and driver, how long opening it
// took (a JIT compile of the kernels would show), the CUDA libraries with
// their versions and the dependencies loaded for them, every shared
// library the process then holds with its NEEDED and RUNPATH entries, and
// each kernel's registers, local and shared memory.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/bulksample/bulksample/gpu"
)

// deviceSummary is the JSON of `bulksample device`.
type deviceSummary struct {
	gpu.Facts
	Version string `json:"version"`
}

func runDevice(ctx context.Context, e *env, args []string) error {
	fs, jsonOut := newFlags(e, "device", "[flags]",
		"Opens the first CUDA device as --device cuda does and prints what it is and what this process loaded\n"+
			"for it: the GPU, its driver, the time Open took, cuSPARSE and cuBLAS (paths, versions, the dependencies\n"+
			"loaded first, the cuSPARSE features present), every shared library mapped with its version, soname,\n"+
			"NEEDED and RUNPATH, and every kernel's registers, local and shared memory per thread or block.\n"+
			"Exit 1 without a GPU, or in a binary built without CUDA support.")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	dev, err := gpu.Open(0)
	if err != nil {
		return fmt.Errorf("device: %w", err)
	}
	defer dev.Close()
	f, err := dev.Facts()
	if err != nil {
		return fmt.Errorf("device: %w", err)
	}
	writeFacts(e.stdout, f)
	if *jsonOut {
		return writeJSON(e.stdout, deviceSummary{Facts: f, Version: version()})
	}
	return nil
}

// writeFacts prints f as text.
func writeFacts(w io.Writer, f gpu.Facts) {
	fmt.Fprintf(w, "device: %s\n", f.Device)
	fmt.Fprintf(w, "driver: %s (CUDA %d.%d)\n", f.Driver, f.DriverVersion/1000, f.DriverVersion%1000/10)
	fmt.Fprintf(w, "open: %.3f s, of which %.3f s loading the kernels' fatbin (%s)\n", f.OpenSeconds, f.ModuleSeconds, f.Image)
	for _, l := range []struct {
		name string
		lib  gpu.LibraryFacts
	}{{"cusparse", f.CUSPARSE}, {"cublas", f.CUBLAS}} {
		if l.lib.Error != "" {
			fmt.Fprintf(w, "%s: %s\n", l.name, l.lib.Error)
			continue
		}
		fmt.Fprintf(w, "%s: version %d, %s", l.name, l.lib.Version, l.lib.Path)
		if len(l.lib.Deps) > 0 {
			fmt.Fprintf(w, ", loaded after %s", strings.Join(l.lib.Deps, ", "))
		}
		if l.lib.Features != "" {
			fmt.Fprintf(w, "; %s", l.lib.Features)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "loaded libraries: %d\n", len(f.Loaded))
	for _, l := range f.Loaded {
		fmt.Fprintf(w, "  %s", l.Path)
		if l.Version != "" {
			fmt.Fprintf(w, " (version %s)", l.Version)
		}
		fmt.Fprintf(w, " soname %s; NEEDED %s; RUNPATH %s\n", orNone(l.Soname), orNone(strings.Join(l.Needed, ", ")), orNone(l.Runpath))
	}
	fmt.Fprintf(w, "kernels: %d (registers per thread, local bytes per thread, static shared bytes per block, max threads per block, PTX and SASS architecture)\n", len(f.Kernels))
	for _, k := range f.Kernels {
		fmt.Fprintf(w, "  %-24s %4d regs %6d local %6d shared %5d threads  ptx %d sass %d\n", k.Name, k.Registers, k.LocalBytes, k.SharedBytes,
			k.MaxThreadsPerBlock, k.PTXVersion, k.BinaryVersion)
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
