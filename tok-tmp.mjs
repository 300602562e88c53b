import { encode } from 'gpt-tokenizer/encoding/cl100k_base'
for (const s of process.argv.slice(2)) console.log(encode(s).length, JSON.stringify(s))
