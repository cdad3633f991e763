//go:build cuda

package cuda

// Loading the libraries: by soname from a list of folders, with the
// dependencies that a folder outside the loader's path holds (libcublasLt
// beside libcublas, libnvJitLink in a sibling folder of NVIDIA's Python
// wheels) loaded first by path, so that the library's NEEDED entries
// resolve to them; and what a process has loaded, for `bulksample device`.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

static void *bs_dlopen(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
// bs_dlopen_dep loads a dependency: the loader then resolves a NEEDED entry
// of its soname to it, wherever it lies.
static void *bs_dlopen_dep(const char *path) { return dlopen(path, RTLD_NOW | RTLD_GLOBAL); }
static const char *bs_dlerror(void) { const char *e = dlerror(); return e ? e : "unknown error"; }
*/
import "C"

import (
	"bufio"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"
)

// libFolderEnv names the folders searched first for the libraries.
const libFolderEnv = "BULKSAMPLE_CUDA_LIB"

// Library is a library the binding loaded: the path given to dlopen (a
// soname when the loader's search found it), and the dependencies it
// loaded before it by path, from the folders it searched.
type Library struct {
	Path string
	Deps []string
}

func (l Library) String() string {
	if len(l.Deps) == 0 {
		return l.Path
	}
	return l.Path + " (after its dependencies " + strings.Join(l.Deps, ", ") + ")"
}

// searchFolders returns the folders openLib tries, in order: those of
// $BULKSAMPLE_CUDA_LIB (colon-separated), "" for the loader's own search
// (LD_LIBRARY_PATH, the cache, RUNPATH), and the toolkit's usual folders.
func searchFolders() []string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv(libFolderEnv)) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return append(dirs, "", "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib")
}

// openLib dlopens the first of names (sonames, newest first) found in the
// search folders and returns its handle and what was loaded, or an error
// listing every try, each with the loader's message (which names a missing
// dependency).
func openLib(what string, names []string) (unsafe.Pointer, Library, error) {
	var tries []string
	dirs := searchFolders()
	for _, dir := range dirs {
		for _, name := range names {
			lib := Library{Path: name}
			if dir != "" {
				lib.Path = filepath.Join(dir, name)
				if _, err := os.Stat(lib.Path); err != nil {
					continue
				}
				lib.Deps = preloadDeps(lib.Path, dirs, 3)
			}
			if h, err := dlopen(lib.Path, false); err == nil {
				return h, lib, nil
			} else {
				tries = append(tries, fmt.Sprintf("%s (%v)", lib.Path, err))
			}
		}
	}
	if len(tries) == 0 {
		tries = append(tries, strings.Join(names, ", ")+" (not found)")
	}
	return nil, Library{}, fmt.Errorf("cuda: cannot load %s: tried %s; set %s to the folder (or colon-separated folders) that hold it and its dependencies",
		what, strings.Join(tries, "; "), libFolderEnv)
}

func dlopen(path string, dep bool) (unsafe.Pointer, error) {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	var h unsafe.Pointer
	if dep {
		h = C.bs_dlopen_dep(cs)
	} else {
		h = C.bs_dlopen(cs)
	}
	if h == nil {
		return nil, fmt.Errorf("%s", C.GoString(C.bs_dlerror()))
	}
	return h, nil
}

// systemLib reports whether soname is a library of the C runtime, which
// the loader always finds and which no CUDA folder should supply.
func systemLib(soname string) bool {
	for _, p := range []string{"libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so", "libgcc_s.so", "libstdc++.so", "ld-linux"} {
		if strings.HasPrefix(soname, p) {
			return true
		}
	}
	return false
}

// depFolders returns where the dependencies of the library at path are
// looked for: its own folder, the sibling lib folders of an NVIDIA wheel
// layout (.../nvidia/cusparse/lib beside .../nvidia/nvjitlink/lib), and
// the search folders.
func depFolders(path string, dirs []string) []string {
	own := filepath.Dir(path)
	out := []string{own}
	if filepath.Base(own) == "lib" && filepath.Base(filepath.Dir(filepath.Dir(own))) == "nvidia" {
		sib, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(own)), "*", "lib"))
		out = append(out, sib...)
	}
	for _, d := range dirs {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// preloadDeps loads, depth levels deep, the dependencies (NEEDED entries)
// of the library at path that one of its dependency folders holds, before
// the library itself, and returns their paths. A dependency none of them
// holds is left to the loader, whose error then names it.
func preloadDeps(path string, dirs []string, depth int) []string {
	if depth == 0 {
		return nil
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	needed, _ := f.ImportedLibraries()
	f.Close()
	var loaded []string
	for _, n := range needed {
		if systemLib(n) {
			continue
		}
		for _, d := range depFolders(path, dirs) {
			p := filepath.Join(d, n)
			if _, err := os.Stat(p); err != nil {
				continue
			}
			loaded = append(loaded, preloadDeps(p, dirs, depth-1)...)
			if _, err := dlopen(p, true); err == nil {
				loaded = append(loaded, p)
			}
			break
		}
	}
	return loaded
}

// LoadedLibrary is a shared object mapped into this process, with the
// dynamic entries that decide how it resolved its dependencies.
type LoadedLibrary struct {
	Path    string   // the file mapped (symbolic links resolved)
	Version string   // the file name's suffix after ".so.", e.g. 12.6.3.3 ("" when none)
	Soname  string   // DT_SONAME
	Needed  []string // DT_NEEDED
	Runpath string   // DT_RUNPATH, or DT_RPATH when there is no RUNPATH
}

// LoadedLibraries returns every shared object this process has mapped
// (from /proc/self/maps), in the order first mapped, with its ELF dynamic
// entries where the file can be read.
func LoadedLibraries() ([]LoadedLibrary, error) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil, fmt.Errorf("cuda: listing the loaded libraries: %w", err)
	}
	defer f.Close()
	var out []LoadedLibrary
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		path := strings.Join(fields[5:], " ")
		base := filepath.Base(path)
		if !strings.HasPrefix(path, "/") || !(strings.HasSuffix(base, ".so") || strings.Contains(base, ".so.")) || seen[path] {
			continue
		}
		seen[path] = true
		out = append(out, describeLibrary(path))
	}
	return out, sc.Err()
}

func describeLibrary(path string) LoadedLibrary {
	l := LoadedLibrary{Path: path}
	if i := strings.Index(filepath.Base(path), ".so."); i >= 0 {
		l.Version = filepath.Base(path)[i+4:]
	}
	f, err := elf.Open(path)
	if err != nil {
		return l
	}
	defer f.Close()
	if s, _ := f.DynString(elf.DT_SONAME); len(s) > 0 {
		l.Soname = s[0]
	}
	l.Needed, _ = f.ImportedLibraries()
	if s, _ := f.DynString(elf.DT_RUNPATH); len(s) > 0 {
		l.Runpath = strings.Join(s, ":")
	} else if s, _ := f.DynString(elf.DT_RPATH); len(s) > 0 {
		l.Runpath = "RPATH " + strings.Join(s, ":")
	}
	return l
}
