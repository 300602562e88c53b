import { describe, expect, it } from 'vitest'
import { ProtocolErrorCode } from '@modelcontextprotocol/server'
import { jsonRpcError, jsonRpcResult, SERVER_ERROR } from '@/lib/http/json-rpc'

// Every JSON-RPC answer toolgate writes by hand goes through these: the bytes are the wire's.
describe('the JSON-RPC answer helpers', () => {
  it('write an error as JSON-RPC 2.0 orders it, with a null id when the request had none', () => {
    expect(JSON.stringify(jsonRpcError(undefined, SERVER_ERROR, 'Method not allowed')))
      .toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Method not allowed"}}')
    expect(JSON.stringify(jsonRpcError(null, ProtocolErrorCode.InvalidRequest, 'no batches')))
      .toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no batches"}}')
  })

  it("keep the request's id as given, 0 and strings included", () => {
    expect(jsonRpcError(0, ProtocolErrorCode.InvalidParams, 'bad cursor')).toEqual({ jsonrpc: '2.0', id: 0, error: { code: -32602, message: 'bad cursor' } })
    expect(JSON.stringify(jsonRpcResult('req-7', {}))).toBe('{"jsonrpc":"2.0","id":"req-7","result":{}}')
  })
})
