//go:build clientgo_pre026

// client-go before 0.26: AddEventHandler returns nothing and a factory has no Shutdown (its
// informers stop with the channel given to Start).
package main

import (
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

func addEventHandler(i cache.SharedIndexInformer, h cache.ResourceEventHandler) {
	i.AddEventHandler(h)
}

func shutdown(dynamicinformer.DynamicSharedInformerFactory) {}
