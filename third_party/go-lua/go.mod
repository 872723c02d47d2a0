module github.com/Shopify/go-lua

go 1.22
