package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is the release this binary claims to be. Release builds set it with
//
//	go build -ldflags "-X main.version=1.2.3" ./cmd/ptywright
var version = "0.1.0-dev"

// versionString describes the build on one line: the release, then what the
// toolchain recorded (module version, VCS revision, Go version, platform), so
// a bug report pins the exact binary.
func versionString() string {
	var details []string
	if info, ok := debug.ReadBuildInfo(); ok {
		details = append(details, "module "+info.Main.Path+" "+info.Main.Version)
		var rev, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			if len(rev) > 12 {
				rev = rev[:12]
			}
			if modified == "true" {
				rev += "+dirty"
			}
			details = append(details, "commit "+rev)
		}
	}
	details = append(details, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
	return fmt.Sprintf("ptywright %s (%s)", version, strings.Join(details, ", "))
}

func versionCommand(args []string, stdout io.Writer) error {
	fs := newFlagSet("version")
	if help, err := parseFlags(fs, args, stdout); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("version", "unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintln(stdout, versionString())
	return nil
}
