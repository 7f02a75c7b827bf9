-- Drives `weft lsp` from headless Neovim 0.11, as a user's editor would:
--   nvim --headless --clean -l lsp.lua WEFT_BIN VAULT OUT_JSON
-- Opens notes, waits for the vault, then asks for completion, definition,
-- references, hover, diagnostics, a property key's rename and a note's
-- rename (applied and saved), and
-- writes what it got to OUT_JSON for the Rust test to check.

local bin, root, out = arg[1], arg[2], arg[3]
local results = { errors = {} }

local function fail(message)
  table.insert(results.errors, message)
end

local function finish()
  vim.fn.writefile({ vim.json.encode(results) }, out)
  vim.cmd('qa!')
end

local function open(rel)
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. rel))
  return vim.api.nvim_get_current_buf()
end

local function rel_of(uri)
  local path = vim.uri_to_fname(uri)
  return path:sub(#root + 2)
end

local a = open('notes/A.md')
local client_id = vim.lsp.start({ name = 'weft', cmd = { bin, 'lsp' }, root_dir = root })
if not client_id then
  fail('vim.lsp.start failed')
  return finish()
end
local client = vim.lsp.get_client_by_id(client_id)

local function request(method, params, bufnr)
  local response = client:request_sync(method, params, 30000, bufnr)
  if not response then
    fail(method .. ': no answer')
    return nil
  end
  if response.err then
    fail(method .. ': ' .. vim.inspect(response.err))
    return nil
  end
  return response.result
end

-- The vault loads in the background; wait for it (polling, with a deadline).
local ready = vim.wait(60000, function()
  local status = client.initialized and request('weft/status', nil, a)
  return status ~= nil and status.ready == true
end, 100)
if not ready then
  fail('the vault never became ready')
  return finish()
end
results.encoding = client.offset_encoding

-- The cursor at `$0` of `needle` (found in the buffer), as LSP params.
local function at(bufnr, needle)
  local marker = needle:find('$0', 1, true)
  local plain = needle:sub(1, marker - 1) .. needle:sub(marker + 2)
  for row, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local start = line:find(plain, 1, true)
    if start then
      vim.api.nvim_set_current_buf(bufnr)
      vim.api.nvim_win_set_cursor(0, { row, start - 1 + marker - 1 })
      return vim.lsp.util.make_position_params(0, client.offset_encoding)
    end
  end
  fail('not in the buffer: ' .. plain)
  return nil
end

-- Definition from a link after an emoji-laden run (positions in UTF-8).
local found = request('textDocument/definition', at(a, '🙂 [[Crè$0me brûlée#Sœur]]'), a)
if found then
  local location = found[1] or found
  results.definition = { file = rel_of(location.uri), line = location.range.start.line }
end

-- References of the note a link names.
local refs = request('textDocument/references', vim.tbl_extend('force', at(a, 'See [[H$0ub]]'), {
  context = { includeDeclaration = false },
}), a)
if refs then
  results.references = {}
  for _, location in ipairs(refs) do
    table.insert(results.references, rel_of(location.uri) .. ':' .. location.range.start.line)
  end
  table.sort(results.references)
end

-- Hover on the same link.
local hover = request('textDocument/hover', at(a, 'See [[H$0ub]]'), a)
if hover then
  results.hover = hover.contents.value
end

-- Diagnostics are pushed: wait for the unresolved link.
vim.wait(60000, function()
  return #vim.diagnostic.get(a) > 0
end, 50)
results.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(a)) do
  table.insert(results.diagnostics, d.lnum .. ':' .. d.col .. ' ' .. d.message)
end

-- A property value that does not fit its declared type: a warning, and the
-- quick fix that writes it so (applied and saved).
local c = open('notes/C.md')
vim.lsp.buf_attach_client(c, client_id)
vim.wait(30000, function()
  return #vim.diagnostic.get(c) > 0
end, 50)
for _, d in ipairs(vim.diagnostic.get(c)) do
  if d.code == 'property-type' then
    results.type_diagnostic = (d.lnum + 1) .. ':' .. d.col .. ' ' .. d.message
    local actions = request('textDocument/codeAction', {
      textDocument = { uri = vim.uri_from_bufnr(c) },
      range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
      context = { diagnostics = { d.user_data.lsp } },
    }, c)
    for _, action in ipairs(actions or {}) do
      if action.title:find('Write `3`', 1, true) then
        results.type_fix = action.title
        vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
        vim.cmd('silent! wall')
      end
    end
  end
end
vim.api.nvim_set_current_buf(a)

-- Completion: type a new line with `[[crè` (sent as an incremental change).
vim.api.nvim_buf_set_lines(a, -1, -1, false, { 'More 🙂 [[crè' })
local line_count = vim.api.nvim_buf_line_count(a)
vim.api.nvim_win_set_cursor(0, { line_count, #'More 🙂 [[crè' })
local completion = request('textDocument/completion', vim.lsp.util.make_position_params(0, client.offset_encoding), a)
if completion then
  local item = (completion.items or completion)[1]
  if item then
    results.completion = { label = item.label, newText = item.textEdit.newText, start = item.textEdit.range.start.character }
  end
end
-- Drop the typed line again.
vim.api.nvim_buf_set_lines(a, line_count - 1, line_count, false, {})

-- Property completion: a frontmatter typed at the top of A, a key then a
-- value (the vault's values of that key); taken out again after.
vim.api.nvim_buf_set_lines(a, 0, 0, false, { '---', 'stat', '---' })
vim.api.nvim_win_set_cursor(0, { 2, #'stat' })
local keys = request('textDocument/completion', vim.lsp.util.make_position_params(0, client.offset_encoding), a)
if keys then
  local item = (keys.items or keys)[1]
  if item then
    results.property_key = { label = item.label, newText = item.textEdit.newText, detail = item.detail }
  end
end
vim.api.nvim_buf_set_lines(a, 1, 2, false, { 'status: ' })
vim.api.nvim_win_set_cursor(0, { 2, #'status: ' })
local values = request('textDocument/completion', vim.lsp.util.make_position_params(0, client.offset_encoding), a)
if values then
  results.property_values = {}
  for _, item in ipairs(values.items or values) do
    table.insert(results.property_values, item.textEdit.newText)
  end
end
vim.api.nvim_win_set_cursor(0, { 2, 2 })
local key_hover = request('textDocument/hover', vim.lsp.util.make_position_params(0, client.offset_encoding), a)
if key_hover then
  results.property_hover = key_hover.contents.value
end
-- Rename the key from the key: every note that has it, and types.json.
local key_edit = request('textDocument/rename', vim.tbl_extend('force',
  vim.lsp.util.make_position_params(0, client.offset_encoding), { newName = 'phase' }), a)
if key_edit then
  vim.lsp.util.apply_workspace_edit(key_edit, client.offset_encoding)
  vim.cmd('silent! wall')
  results.key_renamed = vim.api.nvim_buf_get_lines(a, 1, 2, false)[1]
end
vim.api.nvim_buf_set_lines(a, 0, 3, false, {})

-- Rename the note with spaces and accents from a link to it; apply and save.
local edit = request('textDocument/rename', vim.tbl_extend('force', at(a, '[[Crè$0me brûlée#Sœur]]'), {
  newName = 'Crème caramel',
}), a)
if edit then
  vim.lsp.util.apply_workspace_edit(edit, client.offset_encoding)
  vim.cmd('silent! wall')
  results.renamed = true
end

finish()
