//go:build !linux

package fsio

import "os"

// sparesUsable: without leases a displaced file may still be open in
// another process, so no spare is kept here.
const sparesUsable = false

const noFollow = 0

type fileShape struct{ known bool }

func shapeOf(*os.File) (fileShape, bool) { return fileShape{}, false }
