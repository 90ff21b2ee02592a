//go:build !clientgo_pre026

// client-go 0.26 and newer: AddEventHandler returns a registration, factories shut down.
package main

import (
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

func addEventHandler(i cache.SharedIndexInformer, h cache.ResourceEventHandler) {
	_, _ = i.AddEventHandler(h)
}

func shutdown(f dynamicinformer.DynamicSharedInformerFactory) { f.Shutdown() }
