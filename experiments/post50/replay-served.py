# Replays the first N requests the start model served in an online:experiment run (their prompts as Continue sent
# them, from the state's feedback.jsonl) to a running `online serve`, and counts the whitespace-only answers
# (EXPERIMENTS.md 2026-12-01, session 16: v2's silence at completion.maxPromptTokens 512).
#   python3 experiments/post50/replay-served.py PORT N [results/remeasure-v2/online-v2/exact/state/feedback.jsonl]
import json
import sys
import urllib.request

port, n = sys.argv[1], int(sys.argv[2])
log = sys.argv[3] if len(sys.argv) > 3 else 'results/remeasure-v2/online-v2/exact/state/feedback.jsonl'
rows = [json.loads(line) for line in open(log)]
events = [r for r in rows if r.get('type') == 'event' and r.get('served', {}).get('version') == 0][:n]
stops = ['<|endoftext|>', '<|fim_prefix|>', '<|fim_middle|>', '<|fim_suffix|>', '<|fim_pad|>', '<|repo_name|>',
         '<|file_sep|>', '<|im_start|>', '<|im_end|>', '/src/', '#- coding: utf-8', '```']  # Continue's 12
blank = 0
for r in events:
    body = json.dumps({'model': 'x', 'prompt': r['outcome']['prompt'], 'max_tokens': 4096, 'temperature': 0.01,
                       'stop': stops, 'stream': False}).encode()
    req = urllib.request.Request(f'http://127.0.0.1:{port}/v1/completions', data=body, headers={'Content-Type': 'application/json'})
    out = json.load(urllib.request.urlopen(req))
    text = out['choices'][0]['text']
    blank += text.strip() == ''
    print(repr(text[:60]), out['usage']['prompt_tokens'], 'prompt tokens')
print('blank', blank, 'of', len(events))
