// The real etcd server of the go.etcd.io/etcd/server/v3 module: the same entry point as the
// etcd program of that release (its main only calls etcdmain.Main).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
