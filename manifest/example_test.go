package manifest_test

import (
	"errors"
	"fmt"

	"ptywright/manifest"
)

func ExampleParseTOML() {
	src := []byte(`
name = "echo"
kind = "adapter"
version = "0.1.0"
runtime = "lua"
entrypoint = "main.lua"
permissions = ["session.spawn", "input.write", "matcher.wait"]

[default_target]
program = "/bin/sh"
args = ["-c", "cat"]
`)
	m, err := manifest.ParseTOML(src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Name, m.Kind, m.DefaultTarget.Program, m.DefaultTarget.Args)
	fmt.Println("may write input:", m.HasPermission(manifest.PermissionInputWrite))
	fmt.Println("may read screen:", m.HasPermission(manifest.PermissionScreenRead))

	// Problems name the field and the line.
	_, err = manifest.ParseTOML([]byte(`
name = "echo"
kind = "adapter"
version = "0.1.0"
runtime = "lua"
entrypoint = "main.lua"
permissions = ["net.http"]
`))
	fmt.Println(err)
	fmt.Println(errors.Is(err, manifest.ErrInvalid))
	// Output:
	// echo adapter /bin/sh [-c cat]
	// may write input: true
	// may read screen: false
	// manifest: field "permissions[0]": unknown permission "net.http" (line 7)
	// true
}
