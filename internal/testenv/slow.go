//go:build slow

package testenv

const slow = true
